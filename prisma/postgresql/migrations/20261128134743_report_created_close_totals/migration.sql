-- created_since with close dates, or grouped by close month, from totals as well (see
-- models.prisma): DealCreatedCloseTotal counts each deal in the rows of its creation levels
-- (month, day, hour) crossed with its close levels (month, day). Writes to the deals wait for
-- this migration's commit (the lock), so the rebuild below holds everything committed before
-- it and nothing is written between the rebuild and the commit.
LOCK TABLE "Deal" IN SHARE ROW EXCLUSIVE MODE;

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

CONSTRAINT "DealCreatedCloseTotal_pkey" PRIMARY KEY ("workspaceId","closeDay","createdHour","createdDay","createdMonth","closeMonth","stageId","userId","currency","slot")
);

-- AddForeignKey
ALTER TABLE "DealCreatedCloseTotal" ADD CONSTRAINT "DealCreatedCloseTotal_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- As DealCreatedTotal_add, its creation levels crossed with DealTotal_add's close levels.
CREATE FUNCTION "DealCreatedCloseTotal_add"(gone "Deal"[], came "Deal"[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "DealCreatedCloseTotal" ("workspaceId", "createdHour", "createdDay", "createdMonth", "closeDay", "closeMonth", "stageId", "userId", "currency", "slot", "deals", "value")
  SELECT d."workspaceId", c."hour", c."day", to_char(d."createdAt", 'YYYY-MM'), k."day", coalesce(substr(d."expectedCloseDate", 1, 7), ''), d."stageId", d."userId", d."currency", pg_backend_pid(),
         sum(d.sign), sum(d.sign * round(d."estimatedValue" * 10000)::bigint)
    FROM (SELECT g.*, -1 AS sign FROM unnest(gone) AS g UNION ALL SELECT c.*, 1 FROM unnest(came) AS c) AS d
   CROSS JOIN LATERAL (VALUES ('', ''), ('', to_char(d."createdAt", 'YYYY-MM-DD')), (to_char(d."createdAt", 'YYYY-MM-DD"T"HH24'), to_char(d."createdAt", 'YYYY-MM-DD'))) AS c("hour", "day")
   CROSS JOIN LATERAL (VALUES (''), (NULLIF(d."expectedCloseDate", ''))) AS k("day")
   WHERE k."day" IS NOT NULL AND EXISTS (SELECT 1 FROM "Workspace" ws WHERE ws."id" = d."workspaceId")
   GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9 HAVING sum(d.sign) <> 0 OR sum(d.sign * round(d."estimatedValue" * 10000)::bigint) <> 0 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
  ON CONFLICT ("workspaceId", "createdHour", "createdDay", "createdMonth", "closeDay", "closeMonth", "stageId", "userId", "currency", "slot")
  DO UPDATE SET "deals" = "DealCreatedCloseTotal"."deals" + EXCLUDED."deals", "value" = "DealCreatedCloseTotal"."value" + EXCLUDED."value";
END $$;

-- report_totals_by_day's trigger function, with the third table: a deal moves there when its
-- creation or close key, its group or its value changed.
CREATE OR REPLACE FUNCTION "DealTotal_deal"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rows_ "Deal"[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    rows_ := (SELECT array_agg(n::"Deal") FROM new_rows n);
    PERFORM "DealTotal_add"('{}', rows_);
    PERFORM "DealCreatedTotal_add"('{}', rows_);
    PERFORM "DealCreatedCloseTotal_add"('{}', rows_);
  ELSIF TG_OP = 'DELETE' THEN
    rows_ := (SELECT array_agg(o::"Deal") FROM old_rows o);
    PERFORM "DealTotal_add"(rows_, '{}');
    PERFORM "DealCreatedTotal_add"(rows_, '{}');
    PERFORM "DealCreatedCloseTotal_add"(rows_, '{}');
  ELSE
    PERFORM "DealTotal_add"(array_agg(o::"Deal"), array_agg(n::"Deal")) FROM old_rows o JOIN new_rows n ON n."id" = o."id"
      WHERE (o."workspaceId", o."stageId", o."userId", o."expectedCloseDate", o."currency", o."estimatedValue")
            IS DISTINCT FROM (n."workspaceId", n."stageId", n."userId", n."expectedCloseDate", n."currency", n."estimatedValue")
     HAVING count(*) > 0;
    PERFORM "DealCreatedTotal_add"(array_agg(o::"Deal"), array_agg(n::"Deal")) FROM old_rows o JOIN new_rows n ON n."id" = o."id"
      WHERE (o."workspaceId", o."stageId", o."userId", o."createdAt", o."currency", o."estimatedValue")
            IS DISTINCT FROM (n."workspaceId", n."stageId", n."userId", n."createdAt", n."currency", n."estimatedValue")
     HAVING count(*) > 0;
    PERFORM "DealCreatedCloseTotal_add"(array_agg(o::"Deal"), array_agg(n::"Deal")) FROM old_rows o JOIN new_rows n ON n."id" = o."id"
      WHERE (o."workspaceId", o."stageId", o."userId", o."createdAt", o."expectedCloseDate", o."currency", o."estimatedValue")
            IS DISTINCT FROM (n."workspaceId", n."stageId", n."userId", n."createdAt", n."expectedCloseDate", n."currency", n."estimatedValue")
     HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END $$;

-- The deals that exist, into slot 0, grouped as the function groups them.
INSERT INTO "DealCreatedCloseTotal" ("workspaceId", "createdHour", "createdDay", "createdMonth", "closeDay", "closeMonth", "stageId", "userId", "currency", "slot", "deals", "value")
SELECT d."workspaceId", c."hour", c."day", to_char(d."createdAt", 'YYYY-MM'), k."day", coalesce(substr(d."expectedCloseDate", 1, 7), ''), d."stageId", d."userId", d."currency", 0,
       count(*), sum(round(d."estimatedValue" * 10000)::bigint)
  FROM "Deal" d
 CROSS JOIN LATERAL (VALUES ('', ''), ('', to_char(d."createdAt", 'YYYY-MM-DD')), (to_char(d."createdAt", 'YYYY-MM-DD"T"HH24'), to_char(d."createdAt", 'YYYY-MM-DD'))) AS c("hour", "day")
 CROSS JOIN LATERAL (VALUES (''), (NULLIF(d."expectedCloseDate", ''))) AS k("day")
 WHERE k."day" IS NOT NULL
 GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
