-- CreateTable
CREATE TABLE "Event" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "recordId" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "requestId" TEXT,
    "data" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    CONSTRAINT "Event_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Event_workspaceId_id_idx" ON "Event"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "Event_workspaceId_type_id_idx" ON "Event"("workspaceId", "type", "id");

-- CreateIndex
CREATE INDEX "Event_workspaceId_resource_id_idx" ON "Event"("workspaceId", "resource", "id");

-- CreateIndex
CREATE INDEX "Event_workspaceId_recordId_id_idx" ON "Event"("workspaceId", "recordId", "id");

-- CreateIndex
CREATE INDEX "Event_createdAt_idx" ON "Event"("createdAt");
