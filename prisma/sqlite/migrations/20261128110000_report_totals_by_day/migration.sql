-- The report totals by day as well as by month (see models.prisma): DealTotal gains the
-- close day, DealCreatedTotal counts the deals by creation month, day and hour,
-- PaymentLinkTotal gains the month and the day. A record is counted once per level: in its
-- month's row (day ''), its day's row and (DealCreatedTotal) its hour's row. The triggers are
-- made again for the new keys, and the totals rebuilt from the rows, in the migration's one
-- transaction (SQLite's one writer: no write falls between).
DROP TRIGGER "Deal_total_insert";
DROP TRIGGER "Deal_total_delete";
DROP TRIGGER "Deal_total_move";
DROP TRIGGER "PaymentTransaction_total_insert";
DROP TRIGGER "PaymentTransaction_total_delete";
DROP TRIGGER "PaymentTransaction_total_move";
DROP TABLE "DealTotal";
DROP TABLE "PaymentLinkTotal";

-- CreateTable
CREATE TABLE "DealTotal" (
    "workspaceId" TEXT NOT NULL,
    "closeDay" TEXT NOT NULL,
    "closeMonth" TEXT NOT NULL,
    "stageId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "slot" INTEGER NOT NULL DEFAULT 0,
    "deals" INTEGER NOT NULL,
    "value" BIGINT NOT NULL,

PRIMARY KEY ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "slot"),
    CONSTRAINT "DealTotal_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DealCreatedTotal" (
    "workspaceId" TEXT NOT NULL,
    "createdHour" TEXT NOT NULL,
    "createdDay" TEXT NOT NULL,
    "createdMonth" TEXT NOT NULL,
    "stageId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "slot" INTEGER NOT NULL DEFAULT 0,
    "deals" INTEGER NOT NULL,
    "value" BIGINT NOT NULL,

PRIMARY KEY ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "slot"),
    CONSTRAINT "DealCreatedTotal_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "PaymentLinkTotal" (
    "workspaceId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "paymentLinkId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "slot" INTEGER NOT NULL DEFAULT 0,
    "payments" INTEGER NOT NULL,
    "amount" BIGINT NOT NULL,

PRIMARY KEY ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "slot"),
    CONSTRAINT "PaymentLinkTotal_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Row triggers on slot 0, as report_totals made them. A record enters every level of a
-- calendar key from a list of values: '' for its month's row, its day for its day's row (a
-- deal without a close date has no day's row: its NULL is left out), its hour and day for its
-- hour's row; it leaves the rows it is in, named by `IN`, and a row whose count falls to 0 is
-- removed. A deal's close day is its expected close date as stored and its close month the
-- first 7 characters of it; a created hour, day or month, and a transaction's, is the first
-- 13, 10 or 7 characters of createdAt (ISO text, UTC: 'YYYY-MM-DDTHH'). (`WHERE ... IS NOT
-- NULL` also keeps the upsert's SELECT from reading `ON CONFLICT` as a join.)
CREATE TRIGGER "Deal_total_insert" AFTER INSERT ON "Deal" BEGIN
  INSERT INTO "DealTotal" ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "deals", "value")
  SELECT NEW."workspaceId", l."day", coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."stageId", NEW."userId", NEW."currency", 1, CAST(ROUND(NEW."estimatedValue" * 10000) AS INTEGER)
    FROM (SELECT '' AS "day" UNION ALL SELECT NULLIF(NEW."expectedCloseDate", '')) AS l WHERE l."day" IS NOT NULL
  ON CONFLICT ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "slot") DO UPDATE SET "deals" = "deals" + 1, "value" = "value" + excluded."value";
  INSERT INTO "DealCreatedTotal" ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "deals", "value")
  SELECT NEW."workspaceId", l."hour", l."day", substr(NEW."createdAt", 1, 7), NEW."stageId", NEW."userId", NEW."currency", 1, CAST(ROUND(NEW."estimatedValue" * 10000) AS INTEGER)
    FROM (SELECT '' AS "hour", '' AS "day" UNION ALL SELECT '', substr(NEW."createdAt", 1, 10) UNION ALL SELECT substr(NEW."createdAt", 1, 13), substr(NEW."createdAt", 1, 10)) AS l WHERE l."day" IS NOT NULL
  ON CONFLICT ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "slot") DO UPDATE SET "deals" = "deals" + 1, "value" = "value" + excluded."value";
END;
CREATE TRIGGER "Deal_total_delete" AFTER DELETE ON "Deal" BEGIN
  UPDATE "DealTotal" SET "deals" = "deals" - 1, "value" = "value" - CAST(ROUND(OLD."estimatedValue" * 10000) AS INTEGER)
   WHERE "workspaceId" = OLD."workspaceId" AND "closeDay" IN ('', coalesce(OLD."expectedCloseDate", '')) AND "closeMonth" = coalesce(substr(OLD."expectedCloseDate", 1, 7), '')
     AND "stageId" = OLD."stageId" AND "userId" = OLD."userId" AND "currency" = OLD."currency" AND "slot" = 0;
  DELETE FROM "DealTotal"
   WHERE "workspaceId" = OLD."workspaceId" AND "closeDay" IN ('', coalesce(OLD."expectedCloseDate", '')) AND "closeMonth" = coalesce(substr(OLD."expectedCloseDate", 1, 7), '')
     AND "stageId" = OLD."stageId" AND "userId" = OLD."userId" AND "currency" = OLD."currency" AND "slot" = 0 AND "deals" = 0;
  UPDATE "DealCreatedTotal" SET "deals" = "deals" - 1, "value" = "value" - CAST(ROUND(OLD."estimatedValue" * 10000) AS INTEGER)
   WHERE "workspaceId" = OLD."workspaceId" AND ("createdHour", "createdDay") IN (VALUES ('', ''), ('', substr(OLD."createdAt", 1, 10)), (substr(OLD."createdAt", 1, 13), substr(OLD."createdAt", 1, 10))) AND "createdMonth" = substr(OLD."createdAt", 1, 7)
     AND "stageId" = OLD."stageId" AND "userId" = OLD."userId" AND "currency" = OLD."currency" AND "slot" = 0;
  DELETE FROM "DealCreatedTotal"
   WHERE "workspaceId" = OLD."workspaceId" AND ("createdHour", "createdDay") IN (VALUES ('', ''), ('', substr(OLD."createdAt", 1, 10)), (substr(OLD."createdAt", 1, 13), substr(OLD."createdAt", 1, 10))) AND "createdMonth" = substr(OLD."createdAt", 1, 7)
     AND "stageId" = OLD."stageId" AND "userId" = OLD."userId" AND "currency" = OLD."currency" AND "slot" = 0 AND "deals" = 0;
END;
-- A deal that changes group or value leaves the old groups' totals and enters the new ones',
-- in each table only when its key there or its value changed.
CREATE TRIGGER "Deal_total_move" AFTER UPDATE OF "workspaceId", "stageId", "userId", "expectedCloseDate", "currency", "estimatedValue" ON "Deal"
WHEN (OLD."workspaceId", OLD."stageId", OLD."userId", OLD."expectedCloseDate", OLD."currency", OLD."estimatedValue")
     IS NOT (NEW."workspaceId", NEW."stageId", NEW."userId", NEW."expectedCloseDate", NEW."currency", NEW."estimatedValue") BEGIN
  UPDATE "DealTotal" SET "deals" = "deals" - 1, "value" = "value" - CAST(ROUND(OLD."estimatedValue" * 10000) AS INTEGER)
   WHERE "workspaceId" = OLD."workspaceId" AND "closeDay" IN ('', coalesce(OLD."expectedCloseDate", '')) AND "closeMonth" = coalesce(substr(OLD."expectedCloseDate", 1, 7), '')
     AND "stageId" = OLD."stageId" AND "userId" = OLD."userId" AND "currency" = OLD."currency" AND "slot" = 0;
  DELETE FROM "DealTotal"
   WHERE "workspaceId" = OLD."workspaceId" AND "closeDay" IN ('', coalesce(OLD."expectedCloseDate", '')) AND "closeMonth" = coalesce(substr(OLD."expectedCloseDate", 1, 7), '')
     AND "stageId" = OLD."stageId" AND "userId" = OLD."userId" AND "currency" = OLD."currency" AND "slot" = 0 AND "deals" = 0;
  INSERT INTO "DealTotal" ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "deals", "value")
  SELECT NEW."workspaceId", l."day", coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."stageId", NEW."userId", NEW."currency", 1, CAST(ROUND(NEW."estimatedValue" * 10000) AS INTEGER)
    FROM (SELECT '' AS "day" UNION ALL SELECT NULLIF(NEW."expectedCloseDate", '')) AS l WHERE l."day" IS NOT NULL
  ON CONFLICT ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "slot") DO UPDATE SET "deals" = "deals" + 1, "value" = "value" + excluded."value";
END;
CREATE TRIGGER "Deal_created_total_move" AFTER UPDATE OF "workspaceId", "stageId", "userId", "createdAt", "currency", "estimatedValue" ON "Deal"
WHEN (OLD."workspaceId", OLD."stageId", OLD."userId", OLD."createdAt", OLD."currency", OLD."estimatedValue")
     IS NOT (NEW."workspaceId", NEW."stageId", NEW."userId", NEW."createdAt", NEW."currency", NEW."estimatedValue") BEGIN
  UPDATE "DealCreatedTotal" SET "deals" = "deals" - 1, "value" = "value" - CAST(ROUND(OLD."estimatedValue" * 10000) AS INTEGER)
   WHERE "workspaceId" = OLD."workspaceId" AND ("createdHour", "createdDay") IN (VALUES ('', ''), ('', substr(OLD."createdAt", 1, 10)), (substr(OLD."createdAt", 1, 13), substr(OLD."createdAt", 1, 10))) AND "createdMonth" = substr(OLD."createdAt", 1, 7)
     AND "stageId" = OLD."stageId" AND "userId" = OLD."userId" AND "currency" = OLD."currency" AND "slot" = 0;
  DELETE FROM "DealCreatedTotal"
   WHERE "workspaceId" = OLD."workspaceId" AND ("createdHour", "createdDay") IN (VALUES ('', ''), ('', substr(OLD."createdAt", 1, 10)), (substr(OLD."createdAt", 1, 13), substr(OLD."createdAt", 1, 10))) AND "createdMonth" = substr(OLD."createdAt", 1, 7)
     AND "stageId" = OLD."stageId" AND "userId" = OLD."userId" AND "currency" = OLD."currency" AND "slot" = 0 AND "deals" = 0;
  INSERT INTO "DealCreatedTotal" ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "deals", "value")
  SELECT NEW."workspaceId", l."hour", l."day", substr(NEW."createdAt", 1, 7), NEW."stageId", NEW."userId", NEW."currency", 1, CAST(ROUND(NEW."estimatedValue" * 10000) AS INTEGER)
    FROM (SELECT '' AS "hour", '' AS "day" UNION ALL SELECT '', substr(NEW."createdAt", 1, 10) UNION ALL SELECT substr(NEW."createdAt", 1, 13), substr(NEW."createdAt", 1, 10)) AS l WHERE l."day" IS NOT NULL
  ON CONFLICT ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "slot") DO UPDATE SET "deals" = "deals" + 1, "value" = "value" + excluded."value";
END;

CREATE TRIGGER "PaymentTransaction_total_insert" AFTER INSERT ON "PaymentTransaction" BEGIN
  INSERT INTO "PaymentDayTotal" ("workspaceId", "day", "status", "currency", "payments", "amount")
  VALUES (NEW."workspaceId", substr(NEW."createdAt", 1, 10), NEW."status", NEW."currency", 1, CAST(ROUND(NEW."amount" * 10000) AS INTEGER))
  ON CONFLICT ("workspaceId", "day", "status", "currency", "slot") DO UPDATE SET "payments" = "payments" + 1, "amount" = "amount" + excluded."amount";
  INSERT INTO "PaymentLinkTotal" ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "payments", "amount")
  SELECT NEW."workspaceId", l."day", substr(NEW."createdAt", 1, 7), NEW."paymentLinkId", NEW."status", NEW."currency", 1, CAST(ROUND(NEW."amount" * 10000) AS INTEGER)
    FROM (SELECT '' AS "day" UNION ALL SELECT substr(NEW."createdAt", 1, 10)) AS l WHERE l."day" IS NOT NULL
  ON CONFLICT ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "slot") DO UPDATE SET "payments" = "payments" + 1, "amount" = "amount" + excluded."amount";
END;
CREATE TRIGGER "PaymentTransaction_total_delete" AFTER DELETE ON "PaymentTransaction" BEGIN
  UPDATE "PaymentDayTotal" SET "payments" = "payments" - 1, "amount" = "amount" - CAST(ROUND(OLD."amount" * 10000) AS INTEGER)
   WHERE ("workspaceId", "day", "status", "currency", "slot") = (OLD."workspaceId", substr(OLD."createdAt", 1, 10), OLD."status", OLD."currency", 0);
  DELETE FROM "PaymentDayTotal"
   WHERE ("workspaceId", "day", "status", "currency", "slot") = (OLD."workspaceId", substr(OLD."createdAt", 1, 10), OLD."status", OLD."currency", 0) AND "payments" = 0;
  UPDATE "PaymentLinkTotal" SET "payments" = "payments" - 1, "amount" = "amount" - CAST(ROUND(OLD."amount" * 10000) AS INTEGER)
   WHERE "workspaceId" = OLD."workspaceId" AND "day" IN ('', substr(OLD."createdAt", 1, 10)) AND "month" = substr(OLD."createdAt", 1, 7)
     AND "paymentLinkId" = OLD."paymentLinkId" AND "status" = OLD."status" AND "currency" = OLD."currency" AND "slot" = 0;
  DELETE FROM "PaymentLinkTotal"
   WHERE "workspaceId" = OLD."workspaceId" AND "day" IN ('', substr(OLD."createdAt", 1, 10)) AND "month" = substr(OLD."createdAt", 1, 7)
     AND "paymentLinkId" = OLD."paymentLinkId" AND "status" = OLD."status" AND "currency" = OLD."currency" AND "slot" = 0 AND "payments" = 0;
END;
-- A transaction that changes group or amount (a status change, above all) leaves the old groups' totals and enters the new ones'.
CREATE TRIGGER "PaymentTransaction_total_move" AFTER UPDATE OF "workspaceId", "createdAt", "status", "currency", "paymentLinkId", "amount" ON "PaymentTransaction"
WHEN (OLD."workspaceId", OLD."createdAt", OLD."status", OLD."currency", OLD."paymentLinkId", OLD."amount")
     IS NOT (NEW."workspaceId", NEW."createdAt", NEW."status", NEW."currency", NEW."paymentLinkId", NEW."amount") BEGIN
  UPDATE "PaymentDayTotal" SET "payments" = "payments" - 1, "amount" = "amount" - CAST(ROUND(OLD."amount" * 10000) AS INTEGER)
   WHERE ("workspaceId", "day", "status", "currency", "slot") = (OLD."workspaceId", substr(OLD."createdAt", 1, 10), OLD."status", OLD."currency", 0);
  DELETE FROM "PaymentDayTotal"
   WHERE ("workspaceId", "day", "status", "currency", "slot") = (OLD."workspaceId", substr(OLD."createdAt", 1, 10), OLD."status", OLD."currency", 0) AND "payments" = 0;
  UPDATE "PaymentLinkTotal" SET "payments" = "payments" - 1, "amount" = "amount" - CAST(ROUND(OLD."amount" * 10000) AS INTEGER)
   WHERE "workspaceId" = OLD."workspaceId" AND "day" IN ('', substr(OLD."createdAt", 1, 10)) AND "month" = substr(OLD."createdAt", 1, 7)
     AND "paymentLinkId" = OLD."paymentLinkId" AND "status" = OLD."status" AND "currency" = OLD."currency" AND "slot" = 0;
  DELETE FROM "PaymentLinkTotal"
   WHERE "workspaceId" = OLD."workspaceId" AND "day" IN ('', substr(OLD."createdAt", 1, 10)) AND "month" = substr(OLD."createdAt", 1, 7)
     AND "paymentLinkId" = OLD."paymentLinkId" AND "status" = OLD."status" AND "currency" = OLD."currency" AND "slot" = 0 AND "payments" = 0;
  INSERT INTO "PaymentDayTotal" ("workspaceId", "day", "status", "currency", "payments", "amount")
  VALUES (NEW."workspaceId", substr(NEW."createdAt", 1, 10), NEW."status", NEW."currency", 1, CAST(ROUND(NEW."amount" * 10000) AS INTEGER))
  ON CONFLICT ("workspaceId", "day", "status", "currency", "slot") DO UPDATE SET "payments" = "payments" + 1, "amount" = "amount" + excluded."amount";
  INSERT INTO "PaymentLinkTotal" ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "payments", "amount")
  SELECT NEW."workspaceId", l."day", substr(NEW."createdAt", 1, 7), NEW."paymentLinkId", NEW."status", NEW."currency", 1, CAST(ROUND(NEW."amount" * 10000) AS INTEGER)
    FROM (SELECT '' AS "day" UNION ALL SELECT substr(NEW."createdAt", 1, 10)) AS l WHERE l."day" IS NOT NULL
  ON CONFLICT ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "slot") DO UPDATE SET "payments" = "payments" + 1, "amount" = "amount" + excluded."amount";
END;

-- The rows that exist, grouped as the triggers group them: the months' rows, then the days'.
INSERT INTO "DealTotal" ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "deals", "value")
SELECT "workspaceId", '', coalesce(substr("expectedCloseDate", 1, 7), ''), "stageId", "userId", "currency", count(*), sum(CAST(ROUND("estimatedValue" * 10000) AS INTEGER))
  FROM "Deal" GROUP BY 1, 2, 3, 4, 5, 6
UNION ALL
SELECT "workspaceId", "expectedCloseDate", substr("expectedCloseDate", 1, 7), "stageId", "userId", "currency", count(*), sum(CAST(ROUND("estimatedValue" * 10000) AS INTEGER))
  FROM "Deal" WHERE NULLIF("expectedCloseDate", '') IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO "DealCreatedTotal" ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "deals", "value")
SELECT "workspaceId", '', '', substr("createdAt", 1, 7), "stageId", "userId", "currency", count(*), sum(CAST(ROUND("estimatedValue" * 10000) AS INTEGER))
  FROM "Deal" GROUP BY 1, 2, 3, 4, 5, 6, 7
UNION ALL
SELECT "workspaceId", '', substr("createdAt", 1, 10), substr("createdAt", 1, 7), "stageId", "userId", "currency", count(*), sum(CAST(ROUND("estimatedValue" * 10000) AS INTEGER))
  FROM "Deal" GROUP BY 1, 2, 3, 4, 5, 6, 7
UNION ALL
SELECT "workspaceId", substr("createdAt", 1, 13), substr("createdAt", 1, 10), substr("createdAt", 1, 7), "stageId", "userId", "currency", count(*), sum(CAST(ROUND("estimatedValue" * 10000) AS INTEGER))
  FROM "Deal" GROUP BY 1, 2, 3, 4, 5, 6, 7;
INSERT INTO "PaymentLinkTotal" ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "payments", "amount")
SELECT "workspaceId", '', substr("createdAt", 1, 7), "paymentLinkId", "status", "currency", count(*), sum(CAST(ROUND("amount" * 10000) AS INTEGER))
  FROM "PaymentTransaction" GROUP BY 1, 2, 3, 4, 5, 6
UNION ALL
SELECT "workspaceId", substr("createdAt", 1, 10), substr("createdAt", 1, 7), "paymentLinkId", "status", "currency", count(*), sum(CAST(ROUND("amount" * 10000) AS INTEGER))
  FROM "PaymentTransaction" GROUP BY 1, 2, 3, 4, 5, 6;
