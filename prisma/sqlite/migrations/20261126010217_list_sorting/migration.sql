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
