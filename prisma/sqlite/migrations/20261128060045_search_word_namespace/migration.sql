-- A record's words are stored behind an `x` (src/search/documents.ts, `indexWord`), so that a
-- query word matched as a prefix (`w`) never reaches the workspace's own token, which stays
-- first and as it was. The FTS5 table follows through its update trigger.
UPDATE "SearchEntry" SET "words" = substr("words", 1, instr("words", ' ') - 1) || ' x' || replace(substr("words", instr("words", ' ') + 1), ' ', ' x')
 WHERE instr("words", ' ') > 0;
