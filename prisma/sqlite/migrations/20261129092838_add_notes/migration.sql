-- CreateTable
CREATE TABLE "Note" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "authorId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Note_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Note_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "User" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "_NoteContacts" (
    "A" TEXT NOT NULL,
    "B" TEXT NOT NULL,
    CONSTRAINT "_NoteContacts_A_fkey" FOREIGN KEY ("A") REFERENCES "Contact" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "_NoteContacts_B_fkey" FOREIGN KEY ("B") REFERENCES "Note" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "_NoteCompanies" (
    "A" TEXT NOT NULL,
    "B" TEXT NOT NULL,
    CONSTRAINT "_NoteCompanies_A_fkey" FOREIGN KEY ("A") REFERENCES "Company" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "_NoteCompanies_B_fkey" FOREIGN KEY ("B") REFERENCES "Note" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "_NoteDeals" (
    "A" TEXT NOT NULL,
    "B" TEXT NOT NULL,
    CONSTRAINT "_NoteDeals_A_fkey" FOREIGN KEY ("A") REFERENCES "Deal" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "_NoteDeals_B_fkey" FOREIGN KEY ("B") REFERENCES "Note" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Note_workspaceId_id_idx" ON "Note"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "Note_workspaceId_updatedAt_id_idx" ON "Note"("workspaceId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Note_workspaceId_createdAt_id_idx" ON "Note"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Note_authorId_idx" ON "Note"("authorId");

-- CreateIndex
CREATE UNIQUE INDEX "_NoteContacts_AB_unique" ON "_NoteContacts"("A", "B");

-- CreateIndex
CREATE INDEX "_NoteContacts_B_index" ON "_NoteContacts"("B");

-- CreateIndex
CREATE UNIQUE INDEX "_NoteCompanies_AB_unique" ON "_NoteCompanies"("A", "B");

-- CreateIndex
CREATE INDEX "_NoteCompanies_B_index" ON "_NoteCompanies"("B");

-- CreateIndex
CREATE UNIQUE INDEX "_NoteDeals_AB_unique" ON "_NoteDeals"("A", "B");

-- CreateIndex
CREATE INDEX "_NoteDeals_B_index" ON "_NoteDeals"("B");
