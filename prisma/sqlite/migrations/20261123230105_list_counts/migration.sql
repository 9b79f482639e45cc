-- CreateTable
CREATE TABLE "ListCount" (
    "workspaceId" TEXT NOT NULL,
    "list" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "rows" INTEGER NOT NULL,

    PRIMARY KEY ("workspaceId", "list", "bucket"),
    CONSTRAINT "ListCount_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Keeping "ListCount" exact: a trigger per insert, delete and move, in the writer's own
-- transaction (SQLite runs one writer at a time). Deletes only decrement existing
-- counters, so a workspace being deleted gets no new ones.
CREATE TRIGGER "Contact_count_insert" AFTER INSERT ON "Contact" BEGIN
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows") VALUES (NEW."workspaceId", 'Contact', '', 1)
  ON CONFLICT ("workspaceId", "list", "bucket") DO UPDATE SET "rows" = "rows" + 1;
END;
CREATE TRIGGER "Contact_count_delete" AFTER DELETE ON "Contact" BEGIN
  UPDATE "ListCount" SET "rows" = "rows" - 1 WHERE "workspaceId" = OLD."workspaceId" AND "list" = 'Contact' AND "bucket" = '';
END;

-- A deal counts in the whole list, its stage (by external id, as the filter names it) and its pipeline.
CREATE TRIGGER "Deal_count_insert" AFTER INSERT ON "Deal" BEGIN
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
  SELECT NEW."workspaceId", 'Deal', v.b, 1 FROM (
    SELECT '' AS b UNION ALL
    SELECT 'stage:' || "externalId" FROM "DealStage" WHERE "id" = NEW."stageId" UNION ALL
    SELECT 'pipeline:' || "pipelineId" FROM "DealStage" WHERE "id" = NEW."stageId") AS v WHERE true
  ON CONFLICT ("workspaceId", "list", "bucket") DO UPDATE SET "rows" = "rows" + 1;
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
  ON CONFLICT ("workspaceId", "list", "bucket") DO UPDATE SET "rows" = "rows" + 1;
END;

-- A payment transaction counts in the whole list and its status.
CREATE TRIGGER "PaymentTransaction_count_insert" AFTER INSERT ON "PaymentTransaction" BEGIN
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
  SELECT NEW."workspaceId", 'PaymentTransaction', v.b, 1 FROM (SELECT '' AS b UNION ALL SELECT 'status:' || NEW."status") AS v WHERE true
  ON CONFLICT ("workspaceId", "list", "bucket") DO UPDATE SET "rows" = "rows" + 1;
END;
CREATE TRIGGER "PaymentTransaction_count_delete" AFTER DELETE ON "PaymentTransaction" BEGIN
  UPDATE "ListCount" SET "rows" = "rows" - 1
  WHERE "workspaceId" = OLD."workspaceId" AND "list" = 'PaymentTransaction' AND "bucket" IN ('', 'status:' || OLD."status");
END;
CREATE TRIGGER "PaymentTransaction_count_move" AFTER UPDATE OF "status" ON "PaymentTransaction" WHEN OLD."status" <> NEW."status" BEGIN
  UPDATE "ListCount" SET "rows" = "rows" - 1
  WHERE "workspaceId" = OLD."workspaceId" AND "list" = 'PaymentTransaction' AND "bucket" = 'status:' || OLD."status";
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows") VALUES (NEW."workspaceId", 'PaymentTransaction', 'status:' || NEW."status", 1)
  ON CONFLICT ("workspaceId", "list", "bucket") DO UPDATE SET "rows" = "rows" + 1;
END;

-- The rows that exist already.
INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
SELECT "workspaceId", 'Contact', '', count(*) FROM "Contact" GROUP BY "workspaceId"
UNION ALL
SELECT "workspaceId", 'Deal', '', count(*) FROM "Deal" GROUP BY "workspaceId"
UNION ALL
SELECT d."workspaceId", 'Deal', 'stage:' || s."externalId", count(*) FROM "Deal" d JOIN "DealStage" s ON s."id" = d."stageId" GROUP BY d."workspaceId", s."externalId"
UNION ALL
SELECT d."workspaceId", 'Deal', 'pipeline:' || s."pipelineId", count(*) FROM "Deal" d JOIN "DealStage" s ON s."id" = d."stageId" GROUP BY d."workspaceId", s."pipelineId"
UNION ALL
SELECT "workspaceId", 'PaymentTransaction', '', count(*) FROM "PaymentTransaction" GROUP BY "workspaceId"
UNION ALL
SELECT "workspaceId", 'PaymentTransaction', 'status:' || "status", count(*) FROM "PaymentTransaction" GROUP BY "workspaceId", "status";
