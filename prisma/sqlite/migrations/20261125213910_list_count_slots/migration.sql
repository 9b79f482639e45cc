-- ListCount gains a slot (see models.prisma); SQLite writes slot 0 only. Its triggers name the
-- conflict target, so they are dropped before the table is rebuilt and made again after.
DROP TRIGGER "Contact_count_insert";
DROP TRIGGER "Contact_count_delete";
DROP TRIGGER "Deal_count_insert";
DROP TRIGGER "Deal_count_delete";
DROP TRIGGER "Deal_count_move";
DROP TRIGGER "PaymentTransaction_count_insert";
DROP TRIGGER "PaymentTransaction_count_delete";
DROP TRIGGER "PaymentTransaction_count_move";

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ListCount" (
    "workspaceId" TEXT NOT NULL,
    "list" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "slot" INTEGER NOT NULL DEFAULT 0,
    "rows" INTEGER NOT NULL,

    PRIMARY KEY ("workspaceId", "list", "bucket", "slot"),
    CONSTRAINT "ListCount_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_ListCount" ("bucket", "list", "rows", "workspaceId") SELECT "bucket", "list", "rows", "workspaceId" FROM "ListCount";
DROP TABLE "ListCount";
ALTER TABLE "new_ListCount" RENAME TO "ListCount";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

CREATE TRIGGER "Contact_count_insert" AFTER INSERT ON "Contact" BEGIN
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows") VALUES (NEW."workspaceId", 'Contact', '', 1)
  ON CONFLICT ("workspaceId", "list", "bucket", "slot") DO UPDATE SET "rows" = "rows" + 1;
END;
CREATE TRIGGER "Contact_count_delete" AFTER DELETE ON "Contact" BEGIN
  UPDATE "ListCount" SET "rows" = "rows" - 1 WHERE "workspaceId" = OLD."workspaceId" AND "list" = 'Contact' AND "bucket" = '';
END;
CREATE TRIGGER "Deal_count_insert" AFTER INSERT ON "Deal" BEGIN
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
  SELECT NEW."workspaceId", 'Deal', v.b, 1 FROM (
    SELECT '' AS b UNION ALL
    SELECT 'stage:' || "externalId" FROM "DealStage" WHERE "id" = NEW."stageId" UNION ALL
    SELECT 'pipeline:' || "pipelineId" FROM "DealStage" WHERE "id" = NEW."stageId") AS v WHERE true
  ON CONFLICT ("workspaceId", "list", "bucket", "slot") DO UPDATE SET "rows" = "rows" + 1;
END;
CREATE TRIGGER "Deal_count_delete" AFTER DELETE ON "Deal" BEGIN
  UPDATE "ListCount" SET "rows" = "rows" - 1 WHERE "workspaceId" = OLD."workspaceId" AND "list" = 'Deal' AND "bucket" IN (
    '',
    (SELECT 'stage:' || "externalId" FROM "DealStage" WHERE "id" = OLD."stageId"),
    (SELECT 'pipeline:' || "pipelineId" FROM "DealStage" WHERE "id" = OLD."stageId"));
END;
CREATE TRIGGER "Deal_count_move" AFTER UPDATE OF "stageId" ON "Deal" WHEN OLD."stageId" <> NEW."stageId" BEGIN
  UPDATE "ListCount" SET "rows" = "rows" - 1 WHERE "workspaceId" = OLD."workspaceId" AND "list" = 'Deal' AND "bucket" IN (
    (SELECT 'stage:' || "externalId" FROM "DealStage" WHERE "id" = OLD."stageId"),
    (SELECT 'pipeline:' || "pipelineId" FROM "DealStage" WHERE "id" = OLD."stageId"));
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
  SELECT NEW."workspaceId", 'Deal', v.b, 1 FROM (
    SELECT 'stage:' || "externalId" AS b FROM "DealStage" WHERE "id" = NEW."stageId" UNION ALL
    SELECT 'pipeline:' || "pipelineId" FROM "DealStage" WHERE "id" = NEW."stageId") AS v WHERE true
  ON CONFLICT ("workspaceId", "list", "bucket", "slot") DO UPDATE SET "rows" = "rows" + 1;
END;
CREATE TRIGGER "PaymentTransaction_count_insert" AFTER INSERT ON "PaymentTransaction" BEGIN
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
  SELECT NEW."workspaceId", 'PaymentTransaction', v.b, 1 FROM (
    SELECT '' AS b UNION ALL SELECT 'status:' || NEW."status" UNION ALL SELECT 'link:' || NEW."paymentLinkId"
    UNION ALL SELECT 'link:' || NEW."paymentLinkId" || '|status:' || NEW."status") AS v WHERE true
  ON CONFLICT ("workspaceId", "list", "bucket", "slot") DO UPDATE SET "rows" = "rows" + 1;
END;
CREATE TRIGGER "PaymentTransaction_count_delete" AFTER DELETE ON "PaymentTransaction" BEGIN
  UPDATE "ListCount" SET "rows" = "rows" - 1
  WHERE "workspaceId" = OLD."workspaceId" AND "list" = 'PaymentTransaction'
    AND "bucket" IN ('', 'status:' || OLD."status", 'link:' || OLD."paymentLinkId", 'link:' || OLD."paymentLinkId" || '|status:' || OLD."status");
END;
CREATE TRIGGER "PaymentTransaction_count_move" AFTER UPDATE OF "status", "paymentLinkId" ON "PaymentTransaction"
WHEN OLD."status" <> NEW."status" OR OLD."paymentLinkId" <> NEW."paymentLinkId" BEGIN
  UPDATE "ListCount" SET "rows" = "rows" - 1
  WHERE "workspaceId" = OLD."workspaceId" AND "list" = 'PaymentTransaction'
    AND "bucket" IN ('status:' || OLD."status", 'link:' || OLD."paymentLinkId", 'link:' || OLD."paymentLinkId" || '|status:' || OLD."status");
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
  SELECT NEW."workspaceId", 'PaymentTransaction', v.b, 1 FROM (
    SELECT 'status:' || NEW."status" AS b UNION ALL SELECT 'link:' || NEW."paymentLinkId"
    UNION ALL SELECT 'link:' || NEW."paymentLinkId" || '|status:' || NEW."status") AS v WHERE true
  ON CONFLICT ("workspaceId", "list", "bucket", "slot") DO UPDATE SET "rows" = "rows" + 1;
END;
