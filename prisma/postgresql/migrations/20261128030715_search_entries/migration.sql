-- CreateTable
CREATE TABLE "SearchEntry" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "subtitle" TEXT,
    "words" TEXT NOT NULL,
    "fields" TEXT NOT NULL,
    "record" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

CONSTRAINT "SearchEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SearchEntry_workspaceId_type_idx" ON "SearchEntry"("workspaceId", "type");

-- AddForeignKey
ALTER TABLE "SearchEntry" ADD CONSTRAINT "SearchEntry_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The words' text-search index: each word a lexeme as it is (the 'simple' configuration:
-- the words are stored folded, and a prefix query `jos:*` finds José).
CREATE INDEX "SearchEntry_words_fts_idx" ON "SearchEntry" USING gin (to_tsvector('simple', "words"));
