-- CreateTable
CREATE TABLE "SearchEntry" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "subtitle" TEXT,
    "words" TEXT NOT NULL,
    "fields" TEXT NOT NULL,
    "record" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    CONSTRAINT "SearchEntry_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "SearchEntry_workspaceId_type_idx" ON "SearchEntry"("workspaceId", "type");

-- The words' full-text index (FTS5, named `*_fts` by convention, over SearchEntry's rows by rowid), kept by triggers:
-- upper and lower case and accents fold alike (the words are stored folded anyway).
CREATE VIRTUAL TABLE "SearchEntry_fts" USING fts5("words", content='SearchEntry', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER "SearchEntry_text_insert" AFTER INSERT ON "SearchEntry" BEGIN
  INSERT INTO "SearchEntry_fts" ("rowid", "words") VALUES (new."rowid", new."words");
END;
CREATE TRIGGER "SearchEntry_text_delete" AFTER DELETE ON "SearchEntry" BEGIN
  INSERT INTO "SearchEntry_fts" ("SearchEntry_fts", "rowid", "words") VALUES ('delete', old."rowid", old."words");
END;
CREATE TRIGGER "SearchEntry_text_update" AFTER UPDATE OF "words" ON "SearchEntry" BEGIN
  INSERT INTO "SearchEntry_fts" ("SearchEntry_fts", "rowid", "words") VALUES ('delete', old."rowid", old."words");
  INSERT INTO "SearchEntry_fts" ("rowid", "words") VALUES (new."rowid", new."words");
END;
