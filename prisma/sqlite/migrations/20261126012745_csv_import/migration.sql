-- CreateTable
CREATE TABLE "ImportCheckpoint" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "fileHash" TEXT NOT NULL,
    "rowsDone" INTEGER NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ImportCheckpoint_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "ImportCheckpoint_workspaceId_resource_fileHash_key" ON "ImportCheckpoint"("workspaceId", "resource", "fileHash");
