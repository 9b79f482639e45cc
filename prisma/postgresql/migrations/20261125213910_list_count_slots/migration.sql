-- AlterTable
ALTER TABLE "ListCount" DROP CONSTRAINT "ListCount_pkey",
ADD COLUMN     "slot" INTEGER NOT NULL DEFAULT 0,
ADD CONSTRAINT "ListCount_pkey" PRIMARY KEY ("workspaceId", "list", "bucket", "slot");

-- Each connection adds to its own slot (its backend pid, unique among open connections), so
-- writers to one workspace never lock the same counter row; a count is the sum over the slots
-- (see models.prisma), and src/db/list-counts.ts folds them back into slot 0.
CREATE OR REPLACE FUNCTION "ListCount_add"(list TEXT, workspaces TEXT[], buckets TEXT[], deltas BIGINT[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO "ListCount" ("workspaceId", "list", "bucket", "slot", "rows")
  SELECT d.w, list, d.b, pg_backend_pid(), sum(d.n) FROM unnest(workspaces, buckets, deltas) AS d(w, b, n)
  WHERE EXISTS (SELECT 1 FROM "Workspace" ws WHERE ws."id" = d.w)
  GROUP BY d.w, d.b HAVING sum(d.n) <> 0 ORDER BY d.w, d.b
  ON CONFLICT ("workspaceId", "list", "bucket", "slot") DO UPDATE SET "rows" = "ListCount"."rows" + EXCLUDED."rows"
$$;
