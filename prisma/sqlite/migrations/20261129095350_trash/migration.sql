-- CreateTable
CREATE TABLE "TrashedRecord" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "row" JSONB NOT NULL,
    "links" JSONB NOT NULL,
    "object" JSONB NOT NULL,
    "mergedInto" TEXT,
    "deletedAt" DATETIME NOT NULL,
    "purgeAt" DATETIME NOT NULL,
    CONSTRAINT "TrashedRecord_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "TrashedRecord_workspaceId_deletedAt_id_idx" ON "TrashedRecord"("workspaceId", "deletedAt", "id");

-- CreateIndex
CREATE INDEX "TrashedRecord_workspaceId_type_deletedAt_id_idx" ON "TrashedRecord"("workspaceId", "type", "deletedAt", "id");

-- CreateIndex
CREATE INDEX "TrashedRecord_purgeAt_idx" ON "TrashedRecord"("purgeAt");
