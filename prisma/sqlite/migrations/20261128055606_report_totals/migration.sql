-- CreateTable
CREATE TABLE "DealTotal" (
    "workspaceId" TEXT NOT NULL,
    "stageId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "closeMonth" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "slot" INTEGER NOT NULL DEFAULT 0,
    "deals" INTEGER NOT NULL,
    "value" BIGINT NOT NULL,

PRIMARY KEY ("workspaceId", "stageId", "userId", "closeMonth", "currency", "slot"),
    CONSTRAINT "DealTotal_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "PaymentDayTotal" (
    "workspaceId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "slot" INTEGER NOT NULL DEFAULT 0,
    "payments" INTEGER NOT NULL,
    "amount" BIGINT NOT NULL,

PRIMARY KEY ("workspaceId", "day", "status", "currency", "slot"),
    CONSTRAINT "PaymentDayTotal_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "PaymentLinkTotal" (
    "workspaceId" TEXT NOT NULL,
    "paymentLinkId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "slot" INTEGER NOT NULL DEFAULT 0,
    "payments" INTEGER NOT NULL,
    "amount" BIGINT NOT NULL,

PRIMARY KEY ("workspaceId", "paymentLinkId", "status", "currency", "slot"),
    CONSTRAINT "PaymentLinkTotal_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Keeping the report totals exact (see models.prisma): a trigger per insert, delete and move,
-- in the writer's own transaction (SQLite runs one writer at a time), on slot 0; a group
-- whose count falls to 0 is removed. Deletes only take from existing totals, so a workspace
-- being deleted gets no new ones. The groups follow the reports' rules: an amount as
-- ROUND(x * 10000) ten-thousandths; a deal's month as the first 7 characters of its expected
-- close date; a transaction's day as the first 10 of its createdAt (ISO text, UTC).
CREATE TRIGGER "Deal_total_insert" AFTER INSERT ON "Deal" BEGIN
  INSERT INTO "DealTotal" ("workspaceId", "stageId", "userId", "closeMonth", "currency", "deals", "value")
  VALUES (NEW."workspaceId", NEW."stageId", NEW."userId", coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."currency", 1, CAST(ROUND(NEW."estimatedValue" * 10000) AS INTEGER))
  ON CONFLICT ("workspaceId", "stageId", "userId", "closeMonth", "currency", "slot") DO UPDATE SET "deals" = "deals" + 1, "value" = "value" + excluded."value";
END;
CREATE TRIGGER "Deal_total_delete" AFTER DELETE ON "Deal" BEGIN
  UPDATE "DealTotal" SET "deals" = "deals" - 1, "value" = "value" - CAST(ROUND(OLD."estimatedValue" * 10000) AS INTEGER)
   WHERE ("workspaceId", "stageId", "userId", "closeMonth", "currency", "slot") = (OLD."workspaceId", OLD."stageId", OLD."userId", coalesce(substr(OLD."expectedCloseDate", 1, 7), ''), OLD."currency", 0);
  DELETE FROM "DealTotal"
   WHERE ("workspaceId", "stageId", "userId", "closeMonth", "currency", "slot") = (OLD."workspaceId", OLD."stageId", OLD."userId", coalesce(substr(OLD."expectedCloseDate", 1, 7), ''), OLD."currency", 0) AND "deals" = 0;
END;
-- A deal that changes group or value leaves the old group's total and enters the new one's.
CREATE TRIGGER "Deal_total_move" AFTER UPDATE OF "workspaceId", "stageId", "userId", "expectedCloseDate", "currency", "estimatedValue" ON "Deal"
WHEN (OLD."workspaceId", OLD."stageId", OLD."userId", OLD."expectedCloseDate", OLD."currency", OLD."estimatedValue")
     IS NOT (NEW."workspaceId", NEW."stageId", NEW."userId", NEW."expectedCloseDate", NEW."currency", NEW."estimatedValue") BEGIN
  UPDATE "DealTotal" SET "deals" = "deals" - 1, "value" = "value" - CAST(ROUND(OLD."estimatedValue" * 10000) AS INTEGER)
   WHERE ("workspaceId", "stageId", "userId", "closeMonth", "currency", "slot") = (OLD."workspaceId", OLD."stageId", OLD."userId", coalesce(substr(OLD."expectedCloseDate", 1, 7), ''), OLD."currency", 0);
  DELETE FROM "DealTotal"
   WHERE ("workspaceId", "stageId", "userId", "closeMonth", "currency", "slot") = (OLD."workspaceId", OLD."stageId", OLD."userId", coalesce(substr(OLD."expectedCloseDate", 1, 7), ''), OLD."currency", 0) AND "deals" = 0;
  INSERT INTO "DealTotal" ("workspaceId", "stageId", "userId", "closeMonth", "currency", "deals", "value")
  VALUES (NEW."workspaceId", NEW."stageId", NEW."userId", coalesce(substr(NEW."expectedCloseDate", 1, 7), ''), NEW."currency", 1, CAST(ROUND(NEW."estimatedValue" * 10000) AS INTEGER))
  ON CONFLICT ("workspaceId", "stageId", "userId", "closeMonth", "currency", "slot") DO UPDATE SET "deals" = "deals" + 1, "value" = "value" + excluded."value";
END;

CREATE TRIGGER "PaymentTransaction_total_insert" AFTER INSERT ON "PaymentTransaction" BEGIN
  INSERT INTO "PaymentDayTotal" ("workspaceId", "day", "status", "currency", "payments", "amount")
  VALUES (NEW."workspaceId", substr(NEW."createdAt", 1, 10), NEW."status", NEW."currency", 1, CAST(ROUND(NEW."amount" * 10000) AS INTEGER))
  ON CONFLICT ("workspaceId", "day", "status", "currency", "slot") DO UPDATE SET "payments" = "payments" + 1, "amount" = "amount" + excluded."amount";
  INSERT INTO "PaymentLinkTotal" ("workspaceId", "paymentLinkId", "status", "currency", "payments", "amount")
  VALUES (NEW."workspaceId", NEW."paymentLinkId", NEW."status", NEW."currency", 1, CAST(ROUND(NEW."amount" * 10000) AS INTEGER))
  ON CONFLICT ("workspaceId", "paymentLinkId", "status", "currency", "slot") DO UPDATE SET "payments" = "payments" + 1, "amount" = "amount" + excluded."amount";
END;
CREATE TRIGGER "PaymentTransaction_total_delete" AFTER DELETE ON "PaymentTransaction" BEGIN
  UPDATE "PaymentDayTotal" SET "payments" = "payments" - 1, "amount" = "amount" - CAST(ROUND(OLD."amount" * 10000) AS INTEGER)
   WHERE ("workspaceId", "day", "status", "currency", "slot") = (OLD."workspaceId", substr(OLD."createdAt", 1, 10), OLD."status", OLD."currency", 0);
  DELETE FROM "PaymentDayTotal"
   WHERE ("workspaceId", "day", "status", "currency", "slot") = (OLD."workspaceId", substr(OLD."createdAt", 1, 10), OLD."status", OLD."currency", 0) AND "payments" = 0;
  UPDATE "PaymentLinkTotal" SET "payments" = "payments" - 1, "amount" = "amount" - CAST(ROUND(OLD."amount" * 10000) AS INTEGER)
   WHERE ("workspaceId", "paymentLinkId", "status", "currency", "slot") = (OLD."workspaceId", OLD."paymentLinkId", OLD."status", OLD."currency", 0);
  DELETE FROM "PaymentLinkTotal"
   WHERE ("workspaceId", "paymentLinkId", "status", "currency", "slot") = (OLD."workspaceId", OLD."paymentLinkId", OLD."status", OLD."currency", 0) AND "payments" = 0;
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
   WHERE ("workspaceId", "paymentLinkId", "status", "currency", "slot") = (OLD."workspaceId", OLD."paymentLinkId", OLD."status", OLD."currency", 0);
  DELETE FROM "PaymentLinkTotal"
   WHERE ("workspaceId", "paymentLinkId", "status", "currency", "slot") = (OLD."workspaceId", OLD."paymentLinkId", OLD."status", OLD."currency", 0) AND "payments" = 0;
  INSERT INTO "PaymentDayTotal" ("workspaceId", "day", "status", "currency", "payments", "amount")
  VALUES (NEW."workspaceId", substr(NEW."createdAt", 1, 10), NEW."status", NEW."currency", 1, CAST(ROUND(NEW."amount" * 10000) AS INTEGER))
  ON CONFLICT ("workspaceId", "day", "status", "currency", "slot") DO UPDATE SET "payments" = "payments" + 1, "amount" = "amount" + excluded."amount";
  INSERT INTO "PaymentLinkTotal" ("workspaceId", "paymentLinkId", "status", "currency", "payments", "amount")
  VALUES (NEW."workspaceId", NEW."paymentLinkId", NEW."status", NEW."currency", 1, CAST(ROUND(NEW."amount" * 10000) AS INTEGER))
  ON CONFLICT ("workspaceId", "paymentLinkId", "status", "currency", "slot") DO UPDATE SET "payments" = "payments" + 1, "amount" = "amount" + excluded."amount";
END;

-- The rows that exist already.
INSERT INTO "DealTotal" ("workspaceId", "stageId", "userId", "closeMonth", "currency", "deals", "value")
SELECT "workspaceId", "stageId", "userId", coalesce(substr("expectedCloseDate", 1, 7), ''), "currency", count(*), sum(CAST(ROUND("estimatedValue" * 10000) AS INTEGER))
  FROM "Deal" GROUP BY 1, 2, 3, 4, 5;
INSERT INTO "PaymentDayTotal" ("workspaceId", "day", "status", "currency", "payments", "amount")
SELECT "workspaceId", substr("createdAt", 1, 10), "status", "currency", count(*), sum(CAST(ROUND("amount" * 10000) AS INTEGER))
  FROM "PaymentTransaction" GROUP BY 1, 2, 3, 4;
INSERT INTO "PaymentLinkTotal" ("workspaceId", "paymentLinkId", "status", "currency", "payments", "amount")
SELECT "workspaceId", "paymentLinkId", "status", "currency", count(*), sum(CAST(ROUND("amount" * 10000) AS INTEGER))
  FROM "PaymentTransaction" GROUP BY 1, 2, 3, 4;
