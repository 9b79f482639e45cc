-- created_since with close dates, or grouped by close month, from totals as well (see
-- models.prisma): DealCreatedCloseTotal counts each deal in the rows of its creation levels
-- (month, day, hour) crossed with its close levels (month, day). Its triggers are made (and
-- the other totals' made again, cheaper), and the table filled from the deals,
-- in the migration's one transaction (SQLite's one writer: no write falls between).
-- CreateTable
CREATE TABLE "DealCreatedCloseTotal" (
    "workspaceId" TEXT NOT NULL,
    "createdHour" TEXT NOT NULL,
    "createdDay" TEXT NOT NULL,
    "createdMonth" TEXT NOT NULL,
    "closeDay" TEXT NOT NULL,
    "closeMonth" TEXT NOT NULL,
    "stageId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "slot" INTEGER NOT NULL DEFAULT 0,
    "deals" INTEGER NOT NULL,
    "value" BIGINT NOT NULL,

PRIMARY KEY ("workspaceId", "closeDay", "createdHour", "createdDay", "createdMonth", "closeMonth", "stageId", "userId", "currency", "slot"),
    CONSTRAINT "DealCreatedCloseTotal_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- report_totals_by_day's DealTotal_add and DealCreatedTotal_add again, written as
-- DealCreatedCloseTotal_add is below and for the same reason: a leaving deal is a negative
-- count added by the same upserts (none once its workspace is gone), and the rows it leaves
-- empty are deleted one key at a time. Their UPDATE and DELETE matched a leaving deal's rows
-- by IN lists over key columns (a row value IN (VALUES ...) for DealCreatedTotal_add), which
-- cost SQLite 0.25-0.5 ms a statement; a stage change took ~1.6 ms against ~0.1 ms without
-- the deals' triggers.
DROP TRIGGER "DealTotal_add_insert";
CREATE TRIGGER "DealTotal_add_insert" INSTEAD OF INSERT ON "DealTotal_add" BEGIN
  INSERT INTO "DealTotal" ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "deals", "value")
  SELECT NEW."workspaceId", '', coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"
   WHERE EXISTS (SELECT 1 FROM "Workspace" w WHERE w."id" = NEW."workspaceId")
  ON CONFLICT ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "slot")
  DO UPDATE SET "deals" = "deals" + excluded."deals", "value" = "value" + excluded."value";
  INSERT INTO "DealTotal" ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "deals", "value")
  SELECT NEW."workspaceId", NEW."expectedCloseDate", coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"
   WHERE NULLIF(NEW."expectedCloseDate", '') IS NOT NULL AND EXISTS (SELECT 1 FROM "Workspace" w WHERE w."id" = NEW."workspaceId")
  ON CONFLICT ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "slot")
  DO UPDATE SET "deals" = "deals" + excluded."deals", "value" = "value" + excluded."value";
  DELETE FROM "DealTotal" WHERE NEW."deals" < 0 AND "deals" = 0 AND "workspaceId" = NEW."workspaceId" AND "closeDay" = '' AND "closeMonth" = coalesce(substr(NEW."expectedCloseDate", 1, 7), '') AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
  DELETE FROM "DealTotal" WHERE NEW."deals" < 0 AND NULLIF(NEW."expectedCloseDate", '') IS NOT NULL AND "deals" = 0 AND "workspaceId" = NEW."workspaceId" AND "closeDay" = NEW."expectedCloseDate" AND "closeMonth" = coalesce(substr(NEW."expectedCloseDate", 1, 7), '') AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
END;

DROP TRIGGER "DealCreatedTotal_add_insert";
CREATE TRIGGER "DealCreatedTotal_add_insert" INSTEAD OF INSERT ON "DealCreatedTotal_add" BEGIN
  INSERT INTO "DealCreatedTotal" ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "deals", "value")
  SELECT * FROM (VALUES (NEW."workspaceId", '', '', substr(NEW."createdAt", 1, 7), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"),
                        (NEW."workspaceId", '', substr(NEW."createdAt", 1, 10), substr(NEW."createdAt", 1, 7), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"),
                        (NEW."workspaceId", substr(NEW."createdAt", 1, 13), substr(NEW."createdAt", 1, 10), substr(NEW."createdAt", 1, 7), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"))
   WHERE EXISTS (SELECT 1 FROM "Workspace" w WHERE w."id" = NEW."workspaceId")
  ON CONFLICT ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "slot")
  DO UPDATE SET "deals" = "deals" + excluded."deals", "value" = "value" + excluded."value";
  DELETE FROM "DealCreatedTotal" WHERE NEW."deals" < 0 AND "deals" = 0 AND "workspaceId" = NEW."workspaceId" AND "createdHour" = '' AND "createdDay" = '' AND "createdMonth" = substr(NEW."createdAt", 1, 7) AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
  DELETE FROM "DealCreatedTotal" WHERE NEW."deals" < 0 AND "deals" = 0 AND "workspaceId" = NEW."workspaceId" AND "createdHour" = '' AND "createdDay" = substr(NEW."createdAt", 1, 10) AND "createdMonth" = substr(NEW."createdAt", 1, 7) AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
  DELETE FROM "DealCreatedTotal" WHERE NEW."deals" < 0 AND "deals" = 0 AND "workspaceId" = NEW."workspaceId" AND "createdHour" = substr(NEW."createdAt", 1, 13) AND "createdDay" = substr(NEW."createdAt", 1, 10) AND "createdMonth" = substr(NEW."createdAt", 1, 7) AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
END;

-- PaymentTotal_add (report_totals_by_day) the same way: a transaction's status change took
-- ~0.7 ms of SQLite's time in it, against ~0.1 ms for the rest of the UPDATE.
DROP TRIGGER "PaymentTotal_add_insert";
CREATE TRIGGER "PaymentTotal_add_insert" INSTEAD OF INSERT ON "PaymentTotal_add" BEGIN
  INSERT INTO "PaymentDayTotal" ("workspaceId", "day", "status", "currency", "payments", "amount")
  SELECT NEW."workspaceId", substr(NEW."createdAt", 1, 10), NEW."status", NEW."currency", NEW."payments", NEW."amount"
   WHERE EXISTS (SELECT 1 FROM "Workspace" w WHERE w."id" = NEW."workspaceId")
  ON CONFLICT ("workspaceId", "day", "status", "currency", "slot")
  DO UPDATE SET "payments" = "payments" + excluded."payments", "amount" = "amount" + excluded."amount";
  DELETE FROM "PaymentDayTotal" WHERE NEW."payments" < 0 AND "payments" = 0 AND "workspaceId" = NEW."workspaceId" AND "day" = substr(NEW."createdAt", 1, 10)
     AND "status" = NEW."status" AND "currency" = NEW."currency" AND "slot" = 0;
  INSERT INTO "PaymentLinkTotal" ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "payments", "amount")
  SELECT * FROM (VALUES (NEW."workspaceId", '', substr(NEW."createdAt", 1, 7), NEW."paymentLinkId", NEW."status", NEW."currency", NEW."payments", NEW."amount"),
                        (NEW."workspaceId", substr(NEW."createdAt", 1, 10), substr(NEW."createdAt", 1, 7), NEW."paymentLinkId", NEW."status", NEW."currency", NEW."payments", NEW."amount"))
   WHERE EXISTS (SELECT 1 FROM "Workspace" w WHERE w."id" = NEW."workspaceId")
  ON CONFLICT ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "slot")
  DO UPDATE SET "payments" = "payments" + excluded."payments", "amount" = "amount" + excluded."amount";
  DELETE FROM "PaymentLinkTotal" WHERE NEW."payments" < 0 AND "payments" = 0 AND "workspaceId" = NEW."workspaceId" AND "day" = '' AND "month" = substr(NEW."createdAt", 1, 7) AND "paymentLinkId" = NEW."paymentLinkId" AND "status" = NEW."status" AND "currency" = NEW."currency" AND "slot" = 0;
  DELETE FROM "PaymentLinkTotal" WHERE NEW."payments" < 0 AND "payments" = 0 AND "workspaceId" = NEW."workspaceId" AND "day" = substr(NEW."createdAt", 1, 10) AND "month" = substr(NEW."createdAt", 1, 7) AND "paymentLinkId" = NEW."paymentLinkId" AND "status" = NEW."status" AND "currency" = NEW."currency" AND "slot" = 0;
END;

-- As DealCreatedTotal_add (report_totals_by_day), its creation levels crossed with
-- DealTotal_add's close levels (a deal without a close date has only the close month '' rows),
-- written for SQLite's cost: the rows as VALUES lists rather than a join of two derived tables,
-- a leaving deal added as a negative count by the same upserts (none once its workspace is
-- gone: a workspace being deleted, whose totals may cascade away first, gets no new rows), and
-- the rows it leaves empty deleted one key at a time (a key matched by IN lists, or a row value
-- IN a VALUES list, took SQLite 0.25-0.5 ms a statement here, a whole key 0.01 ms; the join of
-- derived tables ~0.25 ms a call).
CREATE VIEW "DealCreatedCloseTotal_add" AS SELECT
    NULL AS "workspaceId", NULL AS "createdAt", NULL AS "expectedCloseDate", NULL AS "stageId", NULL AS "userId", NULL AS "currency", NULL AS "deals", NULL AS "value"
WHERE 0;
CREATE TRIGGER "DealCreatedCloseTotal_add_insert" INSTEAD OF INSERT ON "DealCreatedCloseTotal_add" BEGIN
  INSERT INTO "DealCreatedCloseTotal" ("workspaceId", "createdHour", "createdDay", "createdMonth", "closeDay", "closeMonth", "stageId", "userId", "currency", "deals", "value")
  SELECT * FROM (VALUES (NEW."workspaceId", '', '', substr(NEW."createdAt", 1, 7), '', coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"),
                        (NEW."workspaceId", '', substr(NEW."createdAt", 1, 10), substr(NEW."createdAt", 1, 7), '', coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"),
                        (NEW."workspaceId", substr(NEW."createdAt", 1, 13), substr(NEW."createdAt", 1, 10), substr(NEW."createdAt", 1, 7), '', coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"))
   WHERE EXISTS (SELECT 1 FROM "Workspace" w WHERE w."id" = NEW."workspaceId")
  ON CONFLICT ("workspaceId", "closeDay", "createdHour", "createdDay", "createdMonth", "closeMonth", "stageId", "userId", "currency", "slot")
  DO UPDATE SET "deals" = "deals" + excluded."deals", "value" = "value" + excluded."value";
  INSERT INTO "DealCreatedCloseTotal" ("workspaceId", "createdHour", "createdDay", "createdMonth", "closeDay", "closeMonth", "stageId", "userId", "currency", "deals", "value")
  SELECT * FROM (VALUES (NEW."workspaceId", '', '', substr(NEW."createdAt", 1, 7), NEW."expectedCloseDate", coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"),
                        (NEW."workspaceId", '', substr(NEW."createdAt", 1, 10), substr(NEW."createdAt", 1, 7), NEW."expectedCloseDate", coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"),
                        (NEW."workspaceId", substr(NEW."createdAt", 1, 13), substr(NEW."createdAt", 1, 10), substr(NEW."createdAt", 1, 7), NEW."expectedCloseDate", coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"))
   WHERE NULLIF(NEW."expectedCloseDate", '') IS NOT NULL AND EXISTS (SELECT 1 FROM "Workspace" w WHERE w."id" = NEW."workspaceId")
  ON CONFLICT ("workspaceId", "closeDay", "createdHour", "createdDay", "createdMonth", "closeMonth", "stageId", "userId", "currency", "slot")
  DO UPDATE SET "deals" = "deals" + excluded."deals", "value" = "value" + excluded."value";
  DELETE FROM "DealCreatedCloseTotal" WHERE NEW."deals" < 0 AND "deals" = 0 AND "workspaceId" = NEW."workspaceId" AND "closeDay" = '' AND "createdHour" = '' AND "createdDay" = ''
     AND "createdMonth" = substr(NEW."createdAt", 1, 7) AND "closeMonth" = coalesce(substr(NEW."expectedCloseDate", 1, 7), '') AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
  DELETE FROM "DealCreatedCloseTotal" WHERE NEW."deals" < 0 AND "deals" = 0 AND "workspaceId" = NEW."workspaceId" AND "closeDay" = '' AND "createdHour" = '' AND "createdDay" = substr(NEW."createdAt", 1, 10)
     AND "createdMonth" = substr(NEW."createdAt", 1, 7) AND "closeMonth" = coalesce(substr(NEW."expectedCloseDate", 1, 7), '') AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
  DELETE FROM "DealCreatedCloseTotal" WHERE NEW."deals" < 0 AND "deals" = 0 AND "workspaceId" = NEW."workspaceId" AND "closeDay" = '' AND "createdHour" = substr(NEW."createdAt", 1, 13) AND "createdDay" = substr(NEW."createdAt", 1, 10)
     AND "createdMonth" = substr(NEW."createdAt", 1, 7) AND "closeMonth" = coalesce(substr(NEW."expectedCloseDate", 1, 7), '') AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
  DELETE FROM "DealCreatedCloseTotal" WHERE NEW."deals" < 0 AND NULLIF(NEW."expectedCloseDate", '') IS NOT NULL AND "deals" = 0 AND "workspaceId" = NEW."workspaceId" AND "closeDay" = NEW."expectedCloseDate" AND "createdHour" = '' AND "createdDay" = ''
     AND "createdMonth" = substr(NEW."createdAt", 1, 7) AND "closeMonth" = coalesce(substr(NEW."expectedCloseDate", 1, 7), '') AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
  DELETE FROM "DealCreatedCloseTotal" WHERE NEW."deals" < 0 AND NULLIF(NEW."expectedCloseDate", '') IS NOT NULL AND "deals" = 0 AND "workspaceId" = NEW."workspaceId" AND "closeDay" = NEW."expectedCloseDate" AND "createdHour" = '' AND "createdDay" = substr(NEW."createdAt", 1, 10)
     AND "createdMonth" = substr(NEW."createdAt", 1, 7) AND "closeMonth" = coalesce(substr(NEW."expectedCloseDate", 1, 7), '') AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
  DELETE FROM "DealCreatedCloseTotal" WHERE NEW."deals" < 0 AND NULLIF(NEW."expectedCloseDate", '') IS NOT NULL AND "deals" = 0 AND "workspaceId" = NEW."workspaceId" AND "closeDay" = NEW."expectedCloseDate" AND "createdHour" = substr(NEW."createdAt", 1, 13) AND "createdDay" = substr(NEW."createdAt", 1, 10)
     AND "createdMonth" = substr(NEW."createdAt", 1, 7) AND "closeMonth" = coalesce(substr(NEW."expectedCloseDate", 1, 7), '') AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
END;

-- Beside the Deal_total_* triggers: a deal enters when inserted, leaves when deleted, and
-- moves when its creation or close key, its group or its value changed.
CREATE TRIGGER "Deal_created_close_total_insert" AFTER INSERT ON "Deal" BEGIN
  INSERT INTO "DealCreatedCloseTotal_add" VALUES (NEW."workspaceId", NEW."createdAt", NEW."expectedCloseDate", NEW."stageId", NEW."userId", NEW."currency", 1, CAST(ROUND(NEW."estimatedValue" * 10000) AS INTEGER));
END;
CREATE TRIGGER "Deal_created_close_total_delete" AFTER DELETE ON "Deal" BEGIN
  INSERT INTO "DealCreatedCloseTotal_add" VALUES (OLD."workspaceId", OLD."createdAt", OLD."expectedCloseDate", OLD."stageId", OLD."userId", OLD."currency", -1, -CAST(ROUND(OLD."estimatedValue" * 10000) AS INTEGER));
END;
CREATE TRIGGER "Deal_created_close_total_move" AFTER UPDATE OF "workspaceId", "stageId", "userId", "createdAt", "expectedCloseDate", "currency", "estimatedValue" ON "Deal"
WHEN (OLD."workspaceId", OLD."stageId", OLD."userId", OLD."createdAt", OLD."expectedCloseDate", OLD."currency", OLD."estimatedValue")
     IS NOT (NEW."workspaceId", NEW."stageId", NEW."userId", NEW."createdAt", NEW."expectedCloseDate", NEW."currency", NEW."estimatedValue") BEGIN
  INSERT INTO "DealCreatedCloseTotal_add" VALUES
    (OLD."workspaceId", OLD."createdAt", OLD."expectedCloseDate", OLD."stageId", OLD."userId", OLD."currency", -1, -CAST(ROUND(OLD."estimatedValue" * 10000) AS INTEGER)),
    (NEW."workspaceId", NEW."createdAt", NEW."expectedCloseDate", NEW."stageId", NEW."userId", NEW."currency", 1, CAST(ROUND(NEW."estimatedValue" * 10000) AS INTEGER));
END;

-- The deals that exist, grouped as the triggers group them: each deal once per creation
-- level (c) and close level (k).
INSERT INTO "DealCreatedCloseTotal" ("workspaceId", "createdHour", "createdDay", "createdMonth", "closeDay", "closeMonth", "stageId", "userId", "currency", "deals", "value")
SELECT d."workspaceId",
       CASE c."level" WHEN 2 THEN substr(d."createdAt", 1, 13) ELSE '' END,
       CASE c."level" WHEN 0 THEN '' ELSE substr(d."createdAt", 1, 10) END,
       substr(d."createdAt", 1, 7),
       CASE k."level" WHEN 0 THEN '' ELSE d."expectedCloseDate" END,
       coalesce(substr(d."expectedCloseDate", 1, 7), ''), d."stageId", d."userId", d."currency",
       count(*), sum(CAST(ROUND(d."estimatedValue" * 10000) AS INTEGER))
  FROM "Deal" d, (SELECT 0 AS "level" UNION ALL SELECT 1 UNION ALL SELECT 2) AS c, (SELECT 0 AS "level" UNION ALL SELECT 1) AS k
 WHERE k."level" = 0 OR NULLIF(d."expectedCloseDate", '') IS NOT NULL
 GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
