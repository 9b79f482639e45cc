-- The report totals by day as well as by month (see models.prisma): DealTotal gains the
-- close day, DealCreatedTotal counts the deals by creation month, day and hour,
-- PaymentLinkTotal gains the month and the day. A record is counted once per level: in its
-- month's row (day ''), its day's row and (DealCreatedTotal) its hour's row. The tables are
-- rebuilt from the rows below, after this lock: writes to the deals and the transactions wait
-- for the migration's commit, so everything committed before it is in the rebuild and nothing
-- is written between the rebuild and the commit.
LOCK TABLE "Deal", "PaymentTransaction" IN SHARE ROW EXCLUSIVE MODE;

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

CONSTRAINT "DealTotal_pkey" PRIMARY KEY ("workspaceId","closeDay","closeMonth","stageId","userId","currency","slot")
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

CONSTRAINT "DealCreatedTotal_pkey" PRIMARY KEY ("workspaceId","createdHour","createdDay","createdMonth","stageId","userId","currency","slot")
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

CONSTRAINT "PaymentLinkTotal_pkey" PRIMARY KEY ("workspaceId","day","month","paymentLinkId","status","currency","slot")
);

-- AddForeignKey
ALTER TABLE "DealTotal" ADD CONSTRAINT "DealTotal_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DealCreatedTotal" ADD CONSTRAINT "DealCreatedTotal_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PaymentLinkTotal" ADD CONSTRAINT "PaymentLinkTotal_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The same statement-level triggers as report_totals made, with their functions replaced. A
-- row enters every level of a calendar key through lateral values: '' for its month's row,
-- its day for its day's row (a deal without a close date has no day's row: its NULL is left
-- out), its hour and day for its hour's row. A deal's close day is its expected close date as
-- stored and its close month the first 7 characters of it; a created hour, day or month, and a
-- transaction's, is createdAt's (UTC) 'YYYY-MM-DD"T"HH24', 'YYYY-MM-DD' or 'YYYY-MM'. The rest
-- is as before: one delta per group, added in key order to the writing connection's own slot.
CREATE OR REPLACE FUNCTION "DealTotal_add"(gone "Deal"[], came "Deal"[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "DealTotal" ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "slot", "deals", "value")
  SELECT d."workspaceId", l."day", coalesce(substr(d."expectedCloseDate", 1, 7), ''), d."stageId", d."userId", d."currency", pg_backend_pid(),
         sum(d.sign), sum(d.sign * round(d."estimatedValue" * 10000)::bigint)
    FROM (SELECT g.*, -1 AS sign FROM unnest(gone) AS g UNION ALL SELECT c.*, 1 FROM unnest(came) AS c) AS d
   CROSS JOIN LATERAL (VALUES (''), (NULLIF(d."expectedCloseDate", ''))) AS l("day")
   WHERE l."day" IS NOT NULL AND EXISTS (SELECT 1 FROM "Workspace" ws WHERE ws."id" = d."workspaceId")
   GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(d.sign) <> 0 OR sum(d.sign * round(d."estimatedValue" * 10000)::bigint) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "slot")
  DO UPDATE SET "deals" = "DealTotal"."deals" + EXCLUDED."deals", "value" = "DealTotal"."value" + EXCLUDED."value";
END $$;

CREATE FUNCTION "DealCreatedTotal_add"(gone "Deal"[], came "Deal"[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "DealCreatedTotal" ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "slot", "deals", "value")
  SELECT d."workspaceId", l."hour", l."day", to_char(d."createdAt", 'YYYY-MM'), d."stageId", d."userId", d."currency", pg_backend_pid(),
         sum(d.sign), sum(d.sign * round(d."estimatedValue" * 10000)::bigint)
    FROM (SELECT g.*, -1 AS sign FROM unnest(gone) AS g UNION ALL SELECT c.*, 1 FROM unnest(came) AS c) AS d
   CROSS JOIN LATERAL (VALUES ('', ''), ('', to_char(d."createdAt", 'YYYY-MM-DD')), (to_char(d."createdAt", 'YYYY-MM-DD"T"HH24'), to_char(d."createdAt", 'YYYY-MM-DD'))) AS l("hour", "day")
   WHERE EXISTS (SELECT 1 FROM "Workspace" ws WHERE ws."id" = d."workspaceId")
   GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING sum(d.sign) <> 0 OR sum(d.sign * round(d."estimatedValue" * 10000)::bigint) <> 0 ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "slot")
  DO UPDATE SET "deals" = "DealCreatedTotal"."deals" + EXCLUDED."deals", "value" = "DealCreatedTotal"."value" + EXCLUDED."value";
END $$;

-- An update moves a row in a table only when its key there or its value changed (`HAVING`:
-- no call at all when no row did, a renamed deal above all).
CREATE OR REPLACE FUNCTION "DealTotal_deal"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rows_ "Deal"[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    rows_ := (SELECT array_agg(n::"Deal") FROM new_rows n);
    PERFORM "DealTotal_add"('{}', rows_);
    PERFORM "DealCreatedTotal_add"('{}', rows_);
  ELSIF TG_OP = 'DELETE' THEN
    rows_ := (SELECT array_agg(o::"Deal") FROM old_rows o);
    PERFORM "DealTotal_add"(rows_, '{}');
    PERFORM "DealCreatedTotal_add"(rows_, '{}');
  ELSE
    PERFORM "DealTotal_add"(array_agg(o::"Deal"), array_agg(n::"Deal")) FROM old_rows o JOIN new_rows n ON n."id" = o."id"
      WHERE (o."workspaceId", o."stageId", o."userId", o."expectedCloseDate", o."currency", o."estimatedValue")
            IS DISTINCT FROM (n."workspaceId", n."stageId", n."userId", n."expectedCloseDate", n."currency", n."estimatedValue")
     HAVING count(*) > 0;
    PERFORM "DealCreatedTotal_add"(array_agg(o::"Deal"), array_agg(n::"Deal")) FROM old_rows o JOIN new_rows n ON n."id" = o."id"
      WHERE (o."workspaceId", o."stageId", o."userId", o."createdAt", o."currency", o."estimatedValue")
            IS DISTINCT FROM (n."workspaceId", n."stageId", n."userId", n."createdAt", n."currency", n."estimatedValue")
     HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION "PaymentTotal_add"(gone "PaymentTransaction"[], came "PaymentTransaction"[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "PaymentDayTotal" ("workspaceId", "day", "status", "currency", "slot", "payments", "amount")
  SELECT t."workspaceId", to_char(t."createdAt", 'YYYY-MM-DD'), t."status", t."currency", pg_backend_pid(),
         sum(t.sign), sum(t.sign * round(t."amount" * 10000)::bigint)
    FROM (SELECT g.*, -1 AS sign FROM unnest(gone) AS g UNION ALL SELECT c.*, 1 FROM unnest(came) AS c) AS t
   WHERE EXISTS (SELECT 1 FROM "Workspace" ws WHERE ws."id" = t."workspaceId")
   GROUP BY 1, 2, 3, 4 HAVING sum(t.sign) <> 0 OR sum(t.sign * round(t."amount" * 10000)::bigint) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT ("workspaceId", "day", "status", "currency", "slot")
  DO UPDATE SET "payments" = "PaymentDayTotal"."payments" + EXCLUDED."payments", "amount" = "PaymentDayTotal"."amount" + EXCLUDED."amount";

  INSERT INTO "PaymentLinkTotal" ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "slot", "payments", "amount")
  SELECT t."workspaceId", l."day", to_char(t."createdAt", 'YYYY-MM'), t."paymentLinkId", t."status", t."currency", pg_backend_pid(),
         sum(t.sign), sum(t.sign * round(t."amount" * 10000)::bigint)
    FROM (SELECT g.*, -1 AS sign FROM unnest(gone) AS g UNION ALL SELECT c.*, 1 FROM unnest(came) AS c) AS t
   CROSS JOIN LATERAL (VALUES (''), (to_char(t."createdAt", 'YYYY-MM-DD'))) AS l("day")
   WHERE EXISTS (SELECT 1 FROM "Workspace" ws WHERE ws."id" = t."workspaceId")
   GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(t.sign) <> 0 OR sum(t.sign * round(t."amount" * 10000)::bigint) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "slot")
  DO UPDATE SET "payments" = "PaymentLinkTotal"."payments" + EXCLUDED."payments", "amount" = "PaymentLinkTotal"."amount" + EXCLUDED."amount";
END $$;

CREATE OR REPLACE FUNCTION "PaymentTotal_payment_transaction"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM "PaymentTotal_add"('{}', (SELECT array_agg(n::"PaymentTransaction") FROM new_rows n));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM "PaymentTotal_add"((SELECT array_agg(o::"PaymentTransaction") FROM old_rows o), '{}');
  ELSE
    -- Only the rows whose group or amount changed move (a status change, above all); no call when none did.
    PERFORM "PaymentTotal_add"(array_agg(o::"PaymentTransaction"), array_agg(n::"PaymentTransaction")) FROM old_rows o JOIN new_rows n ON n."id" = o."id"
      WHERE (o."workspaceId", o."createdAt", o."status", o."currency", o."paymentLinkId", o."amount")
            IS DISTINCT FROM (n."workspaceId", n."createdAt", n."status", n."currency", n."paymentLinkId", n."amount")
     HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END $$;

-- The rows that exist, into slot 0, grouped as the functions group them.
INSERT INTO "DealTotal" ("workspaceId", "closeDay", "closeMonth", "stageId", "userId", "currency", "slot", "deals", "value")
SELECT d."workspaceId", l."day", coalesce(substr(d."expectedCloseDate", 1, 7), ''), d."stageId", d."userId", d."currency", 0, count(*), sum(round(d."estimatedValue" * 10000)::bigint)
  FROM "Deal" d CROSS JOIN LATERAL (VALUES (''), (NULLIF(d."expectedCloseDate", ''))) AS l("day")
 WHERE l."day" IS NOT NULL
 GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO "DealCreatedTotal" ("workspaceId", "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", "slot", "deals", "value")
SELECT d."workspaceId", l."hour", l."day", to_char(d."createdAt", 'YYYY-MM'), d."stageId", d."userId", d."currency", 0, count(*), sum(round(d."estimatedValue" * 10000)::bigint)
  FROM "Deal" d CROSS JOIN LATERAL (VALUES ('', ''), ('', to_char(d."createdAt", 'YYYY-MM-DD')), (to_char(d."createdAt", 'YYYY-MM-DD"T"HH24'), to_char(d."createdAt", 'YYYY-MM-DD'))) AS l("hour", "day")
 GROUP BY 1, 2, 3, 4, 5, 6, 7;
INSERT INTO "PaymentLinkTotal" ("workspaceId", "day", "month", "paymentLinkId", "status", "currency", "slot", "payments", "amount")
SELECT t."workspaceId", l."day", to_char(t."createdAt", 'YYYY-MM'), t."paymentLinkId", t."status", t."currency", 0, count(*), sum(round(t."amount" * 10000)::bigint)
  FROM "PaymentTransaction" t CROSS JOIN LATERAL (VALUES (''), (to_char(t."createdAt", 'YYYY-MM-DD'))) AS l("day")
 GROUP BY 1, 2, 3, 4, 5, 6;
