-- Payment transactions are also counted per payment link ("link:<id>") and per link and
-- status ("link:<id>|status:<status>"), so a search that names links gets an exact
-- total from the counters plus a count of the reference matches on other links.
DROP TRIGGER "PaymentTransaction_count_insert";
DROP TRIGGER "PaymentTransaction_count_delete";
DROP TRIGGER "PaymentTransaction_count_move";

CREATE TRIGGER "PaymentTransaction_count_insert" AFTER INSERT ON "PaymentTransaction" BEGIN
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
  SELECT NEW."workspaceId", 'PaymentTransaction', v.b, 1 FROM (
    SELECT '' AS b UNION ALL SELECT 'status:' || NEW."status" UNION ALL SELECT 'link:' || NEW."paymentLinkId"
    UNION ALL SELECT 'link:' || NEW."paymentLinkId" || '|status:' || NEW."status") AS v WHERE true
  ON CONFLICT ("workspaceId", "list", "bucket") DO UPDATE SET "rows" = "rows" + 1;
END;
CREATE TRIGGER "PaymentTransaction_count_delete" AFTER DELETE ON "PaymentTransaction" BEGIN
  UPDATE "ListCount" SET "rows" = "rows" - 1
  WHERE "workspaceId" = OLD."workspaceId" AND "list" = 'PaymentTransaction'
    AND "bucket" IN ('', 'status:' || OLD."status", 'link:' || OLD."paymentLinkId", 'link:' || OLD."paymentLinkId" || '|status:' || OLD."status");
END;
-- A status or link change moves the row between buckets; the whole list's count stays.
CREATE TRIGGER "PaymentTransaction_count_move" AFTER UPDATE OF "status", "paymentLinkId" ON "PaymentTransaction"
WHEN OLD."status" <> NEW."status" OR OLD."paymentLinkId" <> NEW."paymentLinkId" BEGIN
  UPDATE "ListCount" SET "rows" = "rows" - 1
  WHERE "workspaceId" = OLD."workspaceId" AND "list" = 'PaymentTransaction'
    AND "bucket" IN ('status:' || OLD."status", 'link:' || OLD."paymentLinkId", 'link:' || OLD."paymentLinkId" || '|status:' || OLD."status");
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
  SELECT NEW."workspaceId", 'PaymentTransaction', v.b, 1 FROM (
    SELECT 'status:' || NEW."status" AS b UNION ALL SELECT 'link:' || NEW."paymentLinkId"
    UNION ALL SELECT 'link:' || NEW."paymentLinkId" || '|status:' || NEW."status") AS v WHERE true
  ON CONFLICT ("workspaceId", "list", "bucket") DO UPDATE SET "rows" = "rows" + 1;
END;

-- The rows that exist already.
INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
SELECT "workspaceId", 'PaymentTransaction', 'link:' || "paymentLinkId", count(*) FROM "PaymentTransaction" GROUP BY "workspaceId", "paymentLinkId"
UNION ALL
SELECT "workspaceId", 'PaymentTransaction', 'link:' || "paymentLinkId" || '|status:' || "status", count(*) FROM "PaymentTransaction" GROUP BY "workspaceId", "paymentLinkId", "status";
