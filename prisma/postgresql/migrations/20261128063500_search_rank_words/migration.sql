-- The rank's tokens beside the words (src/search/documents.ts): `y` and each field's first
-- word, `z` and each field of one word, read from the entry's fields (one per line).
UPDATE "SearchEntry" e SET "words" = e."words" || t."extra" FROM (
  SELECT s."id", string_agg(' y' || CASE WHEN position(' ' in f) > 0 THEN split_part(f, ' ', 1) ELSE f || ' z' || f END, '') AS "extra"
    FROM "SearchEntry" s, regexp_split_to_table(s."fields", E'\n') AS f WHERE f <> '' GROUP BY s."id"
) t WHERE t."id" = e."id";

-- A tier's matches newest first, read in index order and stopped at the page's end when
-- they are many (src/search/query.ts). PostgreSQL's alone: SQLite reads its full-text
-- table in rowid order. Written by hand (`*_pg_idx`), since the shared models cannot
-- declare an index for one database.
CREATE INDEX "SearchEntry_newest_pg_idx" ON "SearchEntry" ("workspaceId", "createdAt" DESC, "id" DESC);
