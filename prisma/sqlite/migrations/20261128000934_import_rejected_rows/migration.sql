-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ImportCheckpoint" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "fileHash" TEXT NOT NULL,
    "rowsDone" INTEGER NOT NULL,
    "rejectedRows" TEXT NOT NULL DEFAULT '[]',
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ImportCheckpoint_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_ImportCheckpoint" ("fileHash", "id", "resource", "rowsDone", "updatedAt", "workspaceId") SELECT "fileHash", "id", "resource", "rowsDone", "updatedAt", "workspaceId" FROM "ImportCheckpoint";
DROP TABLE "ImportCheckpoint";
ALTER TABLE "new_ImportCheckpoint" RENAME TO "ImportCheckpoint";
CREATE UNIQUE INDEX "ImportCheckpoint_workspaceId_resource_fileHash_key" ON "ImportCheckpoint"("workspaceId", "resource", "fileHash");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
