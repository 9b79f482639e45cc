-- CreateTable
CREATE TABLE "Note" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "authorId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

CONSTRAINT "Note_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "_NoteContacts" (
    "A" TEXT NOT NULL,
    "B" TEXT NOT NULL,

CONSTRAINT "_NoteContacts_AB_pkey" PRIMARY KEY ("A","B")
);

-- CreateTable
CREATE TABLE "_NoteCompanies" (
    "A" TEXT NOT NULL,
    "B" TEXT NOT NULL,

CONSTRAINT "_NoteCompanies_AB_pkey" PRIMARY KEY ("A","B")
);

-- CreateTable
CREATE TABLE "_NoteDeals" (
    "A" TEXT NOT NULL,
    "B" TEXT NOT NULL,

CONSTRAINT "_NoteDeals_AB_pkey" PRIMARY KEY ("A","B")
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
CREATE INDEX "_NoteContacts_B_index" ON "_NoteContacts"("B");

-- CreateIndex
CREATE INDEX "_NoteCompanies_B_index" ON "_NoteCompanies"("B");

-- CreateIndex
CREATE INDEX "_NoteDeals_B_index" ON "_NoteDeals"("B");

-- AddForeignKey
ALTER TABLE "Note" ADD CONSTRAINT "Note_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Note" ADD CONSTRAINT "Note_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "_NoteContacts" ADD CONSTRAINT "_NoteContacts_A_fkey" FOREIGN KEY ("A") REFERENCES "Contact"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "_NoteContacts" ADD CONSTRAINT "_NoteContacts_B_fkey" FOREIGN KEY ("B") REFERENCES "Note"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "_NoteCompanies" ADD CONSTRAINT "_NoteCompanies_A_fkey" FOREIGN KEY ("A") REFERENCES "Company"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "_NoteCompanies" ADD CONSTRAINT "_NoteCompanies_B_fkey" FOREIGN KEY ("B") REFERENCES "Note"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "_NoteDeals" ADD CONSTRAINT "_NoteDeals_A_fkey" FOREIGN KEY ("A") REFERENCES "Deal"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "_NoteDeals" ADD CONSTRAINT "_NoteDeals_B_fkey" FOREIGN KEY ("B") REFERENCES "Note"("id") ON DELETE CASCADE ON UPDATE CASCADE;
