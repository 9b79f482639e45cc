-- A record's words are stored behind an `x` (src/search/documents.ts, `indexWord`), so that a
-- query word matched as a prefix (`w`) never reaches the workspace's own token, which stays
-- first and as it was.
UPDATE "SearchEntry" SET "words" = split_part("words", ' ', 1) || ' x' || replace(substr("words", position(' ' in "words") + 1), ' ', ' x')
 WHERE position(' ' in "words") > 0;
