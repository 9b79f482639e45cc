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

-- Row triggers on slot 0, as report_totals made them, each change written once: a view per
-- table pair takes a change (+1 or -1 record and its amount) and its INSTEAD OF trigger adds
-- it into every row the record is counted in: an entering record by an upsert, a leaving one
-- by an UPDATE of the rows it is in (so a workspace being deleted, whose totals may cascade
-- away first, gets no new rows), then removes those whose count came to 0 (the views are
-- named as the PostgreSQL functions that do the same). A record's levels come from a
-- list of values: '' for its month's row, its day for its day's row (a deal without a close
-- date has no day's row: its NULL is left out), its hour and day for its hour's row. A deal's
-- close day is its expected close date as stored and its close month the first 7 characters
-- of it; a created hour, day or month, and a transaction's, is the first 13, 10 or 7
-- characters of createdAt (ISO text, UTC: 'YYYY-MM-DDTHH'). (The upserts' `WHERE` also
-- keeps their SELECT from reading `ON CONFLICT` as a join.)
CREATE VIEW "DealTotal_add" AS SELECT
    NULL AS "workspaceId", NULL AS "expectedCloseDate", NULL AS "stageId", NULL AS "userId", NULL AS "currency", NULL AS "deals", NULL AS "value"
WHERE 0;
CREATE TRIGGER "DealTotal_add_insert" INSTEAD OF INSERT ON "DealTotal_add" BEGIN
  INSERT INTO "DealTotal" ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "deals", "value")
  SELECT NEW."workspaceId", l."day", coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"
    FROM (SELECT '' AS "day" UNION ALL SELECT NULLIF(NEW."expectedCloseDate", '')) AS l
   WHERE NEW."deals" > 0 AND l."day" IS NOT NULL
  ON CONFLICT ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "slot") DO UPDATE SET "deals" = "deals" + excluded."deals", "value" = "value" + excluded."value";
  UPDATE "DealTotal" SET "deals" = "deals" + NEW."deals", "value" = "value" + NEW."value"
   WHERE NEW."deals" < 0 AND "workspaceId" = NEW."workspaceId" AND "closeDay" IN ('', coalesce(NEW."expectedCloseDate", '')) AND "closeMonth" = coalesce(substr(NEW."expectedCloseDate", 1, 7), '')
     AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
  DELETE FROM "DealTotal"
   WHERE NEW."deals" < 0 AND "workspaceId" = NEW."workspaceId" AND "closeDay" IN ('', coalesce(NEW."expectedCloseDate", '')) AND "closeMonth" = coalesce(substr(NEW."expectedCloseDate", 1, 7), '')
     AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0 AND "deals" = 0;
END;

CREATE VIEW "DealCreatedTotal_add" AS SELECT
    NULL AS "workspaceId", NULL AS "createdAt", NULL AS "stageId", NULL AS "userId", NULL AS "currency", NULL AS "deals", NULL AS "value"
WHERE 0;
CREATE TRIGGER "DealCreatedTotal_add_insert" INSTEAD OF INSERT ON "DealCreatedTotal_add" BEGIN
  INSERT INTO "DealCreatedTotal" ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "deals", "value")
  SELECT NEW."workspaceId", l."hour", l."day", substr(NEW."createdAt", 1, 7), NEW."stageId", NEW."userId", NEW."currency", NEW."deals", NEW."value"
    FROM (SELECT '' AS "hour", '' AS "day" UNION ALL SELECT '', substr(NEW."createdAt", 1, 10) UNION ALL SELECT substr(NEW."createdAt", 1, 13), substr(NEW."createdAt", 1, 10)) AS l
   WHERE NEW."deals" > 0
  ON CONFLICT ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "slot") DO UPDATE SET "deals" = "deals" + excluded."deals", "value" = "value" + excluded."value";
  UPDATE "DealCreatedTotal" SET "deals" = "deals" + NEW."deals", "value" = "value" + NEW."value"
   WHERE NEW."deals" < 0 AND "workspaceId" = NEW."workspaceId" AND ("createdHour", "createdDay") IN (VALUES ('', ''), ('', substr(NEW."createdAt", 1, 10)), (substr(NEW."createdAt", 1, 13), substr(NEW."createdAt", 1, 10)))
     AND "createdMonth" = substr(NEW."createdAt", 1, 7) AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0;
  DELETE FROM "DealCreatedTotal"
   WHERE NEW."deals" < 0 AND "workspaceId" = NEW."workspaceId" AND ("createdHour", "createdDay") IN (VALUES ('', ''), ('', substr(NEW."createdAt", 1, 10)), (substr(NEW."createdAt", 1, 13), substr(NEW."createdAt", 1, 10)))
     AND "createdMonth" = substr(NEW."createdAt", 1, 7) AND "stageId" = NEW."stageId" AND "userId" = NEW."userId" AND "currency" = NEW."currency" AND "slot" = 0 AND "deals" = 0;
END;

CREATE VIEW "PaymentTotal_add" AS SELECT
    NULL AS "workspaceId", NULL AS "createdAt", NULL AS "paymentLinkId", NULL AS "status", NULL AS "currency", NULL AS "payments", NULL AS "amount"
WHERE 0;
CREATE TRIGGER "PaymentTotal_add_insert" INSTEAD OF INSERT ON "PaymentTotal_add" BEGIN
  INSERT INTO "PaymentDayTotal" ("workspaceId", "day", "status", "currency", "payments", "amount")
  SELECT NEW."workspaceId", substr(NEW."createdAt", 1, 10), NEW."status", NEW."currency", NEW."payments", NEW."amount"
   WHERE NEW."payments" > 0
  ON CONFLICT ("workspaceId", "day", "status", "currency", "slot") DO UPDATE SET "payments" = "payments" + excluded."payments", "amount" = "amount" + excluded."amount";
  UPDATE "PaymentDayTotal" SET "payments" = "payments" + NEW."payments", "amount" = "amount" + NEW."amount"
   WHERE NEW."payments" < 0 AND ("workspaceId", "day", "status", "currency", "slot") = (NEW."workspaceId", substr(NEW."createdAt", 1, 10), NEW."status", NEW."currency", 0);
  DELETE FROM "PaymentDayTotal"
   WHERE NEW."payments" < 0 AND ("workspaceId", "day", "status", "currency", "slot") = (NEW."workspaceId", substr(NEW."createdAt", 1, 10), NEW."status", NEW."currency", 0) AND "payments" = 0;
  INSERT INTO "PaymentLinkTotal" ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "payments", "amount")
  SELECT NEW."workspaceId", l."day", substr(NEW."createdAt", 1, 7), NEW."paymentLinkId", NEW."status", NEW."currency", NEW."payments", NEW."amount"
    FROM (SELECT '' AS "day" UNION ALL SELECT substr(NEW."createdAt", 1, 10)) AS l
   WHERE NEW."payments" > 0
  ON CONFLICT ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "slot") DO UPDATE SET "payments" = "payments" + excluded."payments", "amount" = "amount" + excluded."amount";
  UPDATE "PaymentLinkTotal" SET "payments" = "payments" + NEW."payments", "amount" = "amount" + NEW."amount"
   WHERE NEW."payments" < 0 AND "workspaceId" = NEW."workspaceId" AND "day" IN ('', substr(NEW."createdAt", 1, 10)) AND "month" = substr(NEW."createdAt", 1, 7)
     AND "paymentLinkId" = NEW."paymentLinkId" AND "status" = NEW."status" AND "currency" = NEW."currency" AND "slot" = 0;
  DELETE FROM "PaymentLinkTotal"
   WHERE NEW."payments" < 0 AND "workspaceId" = NEW."workspaceId" AND "day" IN ('', substr(NEW."createdAt", 1, 10)) AND "month" = substr(NEW."createdAt", 1, 7)
     AND "paymentLinkId" = NEW."paymentLinkId" AND "status" = NEW."status" AND "currency" = NEW."currency" AND "slot" = 0 AND "payments" = 0;
END;

-- A record enters its totals when inserted and leaves them when deleted; an update moves it
-- out of its old groups and into its new ones in a table only when its key there or its
-- amount changed.
CREATE TRIGGER "Deal_total_insert" AFTER INSERT ON "Deal" BEGIN
  INSERT INTO "DealTotal_add" VALUES (NEW."workspaceId", NEW."expectedCloseDate", NEW."stageId", NEW."userId", NEW."currency", 1, CAST(ROUND(NEW."estimatedValue" * 10000) AS INTEGER));
  INSERT INTO "DealCreatedTotal_add" VALUES (NEW."workspaceId", NEW."createdAt", NEW."stageId", NEW."userId", NEW."currency", 1, CAST(ROUND(NEW."estimatedValue" * 10000) AS INTEGER));
END;
CREATE TRIGGER "Deal_total_delete" AFTER DELETE ON "Deal" BEGIN
  INSERT INTO "DealTotal_add" VALUES (OLD."workspaceId", OLD."expectedCloseDate", OLD."stageId", OLD."userId", OLD."currency", -1, -CAST(ROUND(OLD."estimatedValue" * 10000) AS INTEGER));
  INSERT INTO "DealCreatedTotal_add" VALUES (OLD."workspaceId", OLD."createdAt", OLD."stageId", OLD."userId", OLD."currency", -1, -CAST(ROUND(OLD."estimatedValue" * 10000) AS INTEGER));
END;
CREATE TRIGGER "Deal_total_move" AFTER UPDATE OF "workspaceId", "stageId", "userId", "expectedCloseDate", "currency", "estimatedValue" ON "Deal"
WHEN (OLD."workspaceId", OLD."stageId", OLD."userId", OLD."expectedCloseDate", OLD."currency", OLD."estimatedValue")
     IS NOT (NEW."workspaceId", NEW."stageId", NEW."userId", NEW."expectedCloseDate", NEW."currency", NEW."estimatedValue") BEGIN
  INSERT INTO "DealTotal_add" VALUES
    (OLD."workspaceId", OLD."expectedCloseDate", OLD."stageId", OLD."userId", OLD."currency", -1, -CAST(ROUND(OLD."estimatedValue" * 10000) AS INTEGER)),
    (NEW."workspaceId", NEW."expectedCloseDate", NEW."stageId", NEW."userId", NEW."currency", 1, CAST(ROUND(NEW."estimatedValue" * 10000) AS INTEGER));
END;
CREATE TRIGGER "Deal_created_total_move" AFTER UPDATE OF "workspaceId", "stageId", "userId", "createdAt", "currency", "estimatedValue" ON "Deal"
WHEN (OLD."workspaceId", OLD."stageId", OLD."userId", OLD."createdAt", OLD."currency", OLD."estimatedValue")
     IS NOT (NEW."workspaceId", NEW."stageId", NEW."userId", NEW."createdAt", NEW."currency", NEW."estimatedValue") BEGIN
  INSERT INTO "DealCreatedTotal_add" VALUES
    (OLD."workspaceId", OLD."createdAt", OLD."stageId", OLD."userId", OLD."currency", -1, -CAST(ROUND(OLD."estimatedValue" * 10000) AS INTEGER)),
    (NEW."workspaceId", NEW."createdAt", NEW."stageId", NEW."userId", NEW."currency", 1, CAST(ROUND(NEW."estimatedValue" * 10000) AS INTEGER));
END;

CREATE TRIGGER "PaymentTransaction_total_insert" AFTER INSERT ON "PaymentTransaction" BEGIN
  INSERT INTO "PaymentTotal_add" VALUES (NEW."workspaceId", NEW."createdAt", NEW."paymentLinkId", NEW."status", NEW."currency", 1, CAST(ROUND(NEW."amount" * 10000) AS INTEGER));
END;
CREATE TRIGGER "PaymentTransaction_total_delete" AFTER DELETE ON "PaymentTransaction" BEGIN
  INSERT INTO "PaymentTotal_add" VALUES (OLD."workspaceId", OLD."createdAt", OLD."paymentLinkId", OLD."status", OLD."currency", -1, -CAST(ROUND(OLD."amount" * 10000) AS INTEGER));
END;
CREATE TRIGGER "PaymentTransaction_total_move" AFTER UPDATE OF "workspaceId", "createdAt", "status", "currency", "paymentLinkId", "amount" ON "PaymentTransaction"
WHEN (OLD."workspaceId", OLD."createdAt", OLD."status", OLD."currency", OLD."paymentLinkId", OLD."amount")
     IS NOT (NEW."workspaceId", NEW."createdAt", NEW."status", NEW."currency", NEW."paymentLinkId", NEW."amount") BEGIN
  INSERT INTO "PaymentTotal_add" VALUES
    (OLD."workspaceId", OLD."createdAt", OLD."paymentLinkId", OLD."status", OLD."currency", -1, -CAST(ROUND(OLD."amount" * 10000) AS INTEGER)),
    (NEW."workspaceId", NEW."createdAt", NEW."paymentLinkId", NEW."status", NEW."currency", 1, CAST(ROUND(NEW."amount" * 10000) AS INTEGER));
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
