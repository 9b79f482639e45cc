-- Payment transactions are also counted per payment link ("link:<id>") and per link and
-- status ("link:<id>|status:<status>"), so a search that names links gets an exact
-- total from the counters plus a count of the reference matches on other links.
CREATE OR REPLACE FUNCTION "ListCount_payment_transaction"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM "ListCount_add"('PaymentTransaction', array_agg(w), array_agg(b), array_agg(n)) FROM (
      SELECT r."workspaceId" AS w, v.b, 1::bigint AS n FROM new_rows r CROSS JOIN LATERAL (VALUES
        (''), ('status:' || r."status"), ('link:' || r."paymentLinkId"), ('link:' || r."paymentLinkId" || '|status:' || r."status")) AS v(b)) AS x;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM "ListCount_add"('PaymentTransaction', array_agg(w), array_agg(b), array_agg(n)) FROM (
      SELECT r."workspaceId" AS w, v.b, -1::bigint AS n FROM old_rows r CROSS JOIN LATERAL (VALUES
        (''), ('status:' || r."status"), ('link:' || r."paymentLinkId"), ('link:' || r."paymentLinkId" || '|status:' || r."status")) AS v(b)) AS x;
  ELSE
    -- A status or link change moves the row between buckets; the whole list's count stays.
    PERFORM "ListCount_add"('PaymentTransaction', array_agg(w), array_agg(b), array_agg(n)) FROM (
      SELECT r."workspaceId" AS w, v.b, -1::bigint AS n FROM old_rows r CROSS JOIN LATERAL (VALUES
        ('status:' || r."status"), ('link:' || r."paymentLinkId"), ('link:' || r."paymentLinkId" || '|status:' || r."status")) AS v(b)
      UNION ALL
      SELECT r."workspaceId", v.b, 1 FROM new_rows r CROSS JOIN LATERAL (VALUES
        ('status:' || r."status"), ('link:' || r."paymentLinkId"), ('link:' || r."paymentLinkId" || '|status:' || r."status")) AS v(b)) AS x;
  END IF;
  RETURN NULL;
END $$;

-- The rows that exist already.
INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "rows")
SELECT t."workspaceId", 'PaymentTransaction', v.b, count(*) FROM "PaymentTransaction" t
  CROSS JOIN LATERAL (VALUES ('link:' || t."paymentLinkId"), ('link:' || t."paymentLinkId" || '|status:' || t."status")) AS v(b)
  GROUP BY t."workspaceId", v.b;
