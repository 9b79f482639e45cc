-- The rank's tokens beside the words (src/search/documents.ts): `y` and each field's first
-- word, `z` and each field of one word, read from the entry's fields (one per line). The
-- FTS5 table follows through its update trigger.
WITH RECURSIVE "split"("id", "rest", "field") AS (
  SELECT "id", substr("fields", 2), NULL FROM "SearchEntry"
  UNION ALL
  SELECT "id", substr("rest", instr("rest", char(10)) + 1), substr("rest", 1, instr("rest", char(10)) - 1) FROM "split" WHERE instr("rest", char(10)) > 0
), "tokens"("id", "extra") AS (
  SELECT "id", group_concat(' y' || CASE WHEN instr("field", ' ') > 0 THEN substr("field", 1, instr("field", ' ') - 1) ELSE "field" || ' z' || "field" END, '')
    FROM "split" WHERE "field" <> '' GROUP BY "id"
)
UPDATE "SearchEntry" SET "words" = "words" || "tokens"."extra" FROM "tokens" WHERE "tokens"."id" = "SearchEntry"."id";
