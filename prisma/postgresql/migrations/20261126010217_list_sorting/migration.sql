-- CreateIndex
CREATE INDEX "Product_workspaceId_updatedAt_id_idx" ON "Product"("workspaceId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Contact_workspaceId_updatedAt_id_idx" ON "Contact"("workspaceId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Contact_workspaceId_createdAt_id_idx" ON "Contact"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Company_workspaceId_updatedAt_id_idx" ON "Company"("workspaceId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Deal_workspaceId_updatedAt_id_idx" ON "Deal"("workspaceId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Deal_workspaceId_createdAt_id_idx" ON "Deal"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "PaymentTransaction_workspaceId_updatedAt_id_idx" ON "PaymentTransaction"("workspaceId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "PaymentTransaction_workspaceId_createdAt_id_idx" ON "PaymentTransaction"("workspaceId", "createdAt", "id");

-- Sorting compares text by code point, as SQLite does (API.md section 8): the sortable
-- text columns use the "C" collation whatever the database's default. Prisma's schema
-- cannot say this, and its diffs ignore collations, so it lives here only.
ALTER TABLE "Contact" ALTER COLUMN "firstName" TYPE TEXT COLLATE "C", ALTER COLUMN "lastName" TYPE TEXT COLLATE "C", ALTER COLUMN "email" TYPE TEXT COLLATE "C";
ALTER TABLE "Company" ALTER COLUMN "name" TYPE TEXT COLLATE "C", ALTER COLUMN "domain" TYPE TEXT COLLATE "C";
ALTER TABLE "Deal" ALTER COLUMN "name" TYPE TEXT COLLATE "C", ALTER COLUMN "expectedCloseDate" TYPE TEXT COLLATE "C";
ALTER TABLE "Product" ALTER COLUMN "name" TYPE TEXT COLLATE "C", ALTER COLUMN "sku" TYPE TEXT COLLATE "C";
ALTER TABLE "Task" ALTER COLUMN "dueDate" TYPE TEXT COLLATE "C", ALTER COLUMN "priority" TYPE TEXT COLLATE "C";
ALTER TABLE "PaymentLink" ALTER COLUMN "name" TYPE TEXT COLLATE "C";
