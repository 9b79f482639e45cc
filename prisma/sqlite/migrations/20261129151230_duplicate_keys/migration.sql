-- AlterTable
ALTER TABLE "Company" ADD COLUMN "domainKey" TEXT;
ALTER TABLE "Company" ADD COLUMN "nameKey" TEXT;

-- AlterTable
ALTER TABLE "Contact" ADD COLUMN "nameKey" TEXT;

-- CreateIndex
CREATE INDEX "Company_workspaceId_nameKey_idx" ON "Company"("workspaceId", "nameKey");

-- CreateIndex
CREATE INDEX "Company_workspaceId_domainKey_idx" ON "Company"("workspaceId", "domainKey");

-- CreateIndex
CREATE INDEX "Contact_workspaceId_nameKey_idx" ON "Contact"("workspaceId", "nameKey");
