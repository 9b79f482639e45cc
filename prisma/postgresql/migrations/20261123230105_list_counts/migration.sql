-- CreateTable
CREATE TABLE "ListCount" (
    "workspaceId" TEXT NOT NULL,
    "list" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "rows" INTEGER NOT NULL,

    CONSTRAINT "ListCount_pkey" PRIMARY KEY ("workspaceId","list","bucket")
);

-- AddForeignKey
ALTER TABLE "ListCount" ADD CONSTRAINT "ListCount_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Keeping "ListCount" exact: statement-level triggers fold each statement's rows into
-- one delta per (workspace, list, bucket), applied in key order (so concurrent writers
-- lock counters in the same order) in the writer's own transaction. A workspace being
-- deleted gets no new counters: its rows cascade away with it.
CREATE FUNCTION "ListCount_add"(list TEXT, workspaces TEXT[], buckets TEXT[], deltas BIGINT[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
  SELECT d.w, list, d.b, sum(d.n) FROM unnest(workspaces, buckets, deltas) AS d(w, b, n)
  WHERE EXISTS (SELECT 1 FROM "Workspace" ws WHERE ws."id" = d.w)
  GROUP BY d.w, d.b HAVING sum(d.n) <> 0 ORDER BY d.w, d.b
  ON CONFLICT ("workspaceId", "list", "bucket") DO UPDATE SET "rows" = "ListCount"."rows" + EXCLUDED."rows"
$$;

CREATE FUNCTION "ListCount_contact"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM "ListCount_add"('Contact', array_agg("workspaceId"), array_agg(''::text), array_agg(1::bigint)) FROM new_rows;
  ELSE
    PERFORM "ListCount_add"('Contact', array_agg("workspaceId"), array_agg(''::text), array_agg(-1::bigint)) FROM old_rows;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "Contact_count_insert" AFTER INSERT ON "Contact" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "ListCount_contact"();
CREATE TRIGGER "Contact_count_delete" AFTER DELETE ON "Contact" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "ListCount_contact"();

-- A deal counts in the whole list, its stage (by external id, as the filter names it) and its pipeline.
CREATE FUNCTION "ListCount_deal"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM "ListCount_add"('Deal', array_agg(w), array_agg(b), array_agg(n)) FROM (
      SELECT r."workspaceId" AS w, v.b, 1::bigint AS n FROM new_rows r JOIN "DealStage" s ON s."id" = r."stageId"
      CROSS JOIN LATERAL (VALUES (''), ('stage:' || s."externalId"), ('pipeline:' || s."pipelineId")) AS v(b)) AS x;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM "ListCount_add"('Deal', array_agg(w), array_agg(b), array_agg(n)) FROM (
      SELECT r."workspaceId" AS w, v.b, -1::bigint AS n FROM old_rows r JOIN "DealStage" s ON s."id" = r."stageId"
      CROSS JOIN LATERAL (VALUES (''), ('stage:' || s."externalId"), ('pipeline:' || s."pipelineId")) AS v(b)) AS x;
  ELSE
    PERFORM "ListCount_add"('Deal', array_agg(w), array_agg(b), array_agg(n)) FROM (
      SELECT r."workspaceId" AS w, v.b, -1::bigint AS n FROM old_rows r JOIN "DealStage" s ON s."id" = r."stageId"
      CROSS JOIN LATERAL (VALUES ('stage:' || s."externalId"), ('pipeline:' || s."pipelineId")) AS v(b)
      UNION ALL
      SELECT r."workspaceId", v.b, 1 FROM new_rows r JOIN "DealStage" s ON s."id" = r."stageId"
      CROSS JOIN LATERAL (VALUES ('stage:' || s."externalId"), ('pipeline:' || s."pipelineId")) AS v(b)) AS x;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "Deal_count_insert" AFTER INSERT ON "Deal" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "ListCount_deal"();
CREATE TRIGGER "Deal_count_delete" AFTER DELETE ON "Deal" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "ListCount_deal"();
CREATE TRIGGER "Deal_count_move" AFTER UPDATE ON "Deal" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "ListCount_deal"();

-- A payment transaction counts in the whole list and its status.
CREATE FUNCTION "ListCount_payment_transaction"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM "ListCount_add"('PaymentTransaction', array_agg(w), array_agg(b), array_agg(n)) FROM (
      SELECT r."workspaceId" AS w, v.b, 1::bigint AS n FROM new_rows r CROSS JOIN LATERAL (VALUES (''), ('status:' || r."status")) AS v(b)) AS x;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM "ListCount_add"('PaymentTransaction', array_agg(w), array_agg(b), array_agg(n)) FROM (
      SELECT r."workspaceId" AS w, v.b, -1::bigint AS n FROM old_rows r CROSS JOIN LATERAL (VALUES (''), ('status:' || r."status")) AS v(b)) AS x;
  ELSE
    PERFORM "ListCount_add"('PaymentTransaction', array_agg(w), array_agg(b), array_agg(n)) FROM (
      SELECT r."workspaceId" AS w, 'status:' || r."status" AS b, -1::bigint AS n FROM old_rows r
      UNION ALL
      SELECT r."workspaceId", 'status:' || r."status", 1 FROM new_rows r) AS x;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "PaymentTransaction_count_insert" AFTER INSERT ON "PaymentTransaction" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "ListCount_payment_transaction"();
CREATE TRIGGER "PaymentTransaction_count_delete" AFTER DELETE ON "PaymentTransaction" REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "ListCount_payment_transaction"();
CREATE TRIGGER "PaymentTransaction_count_move" AFTER UPDATE ON "PaymentTransaction" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "ListCount_payment_transaction"();

-- The rows that exist already.
INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
SELECT "workspaceId", 'Contact', '', count(*) FROM "Contact" GROUP BY "workspaceId"
UNION ALL
SELECT d."workspaceId", 'Deal', v.b, count(*) FROM "Deal" d JOIN "DealStage" s ON s."id" = d."stageId"
  CROSS JOIN LATERAL (VALUES (''), ('stage:' || s."externalId"), ('pipeline:' || s."pipelineId")) AS v(b) GROUP BY d."workspaceId", v.b
UNION ALL
SELECT t."workspaceId", 'PaymentTransaction', v.b, count(*) FROM "PaymentTransaction" t
  CROSS JOIN LATERAL (VALUES (''), ('status:' || t."status")) AS v(b) GROUP BY t."workspaceId", v.b;
