-- DropIndex
DROP INDEX "Product_workspaceId_isActive_idx";

-- DropIndex
DROP INDEX "Product_workspaceId_type_idx";

-- DropIndex
DROP INDEX "Company_workspaceId_idx";

-- DropIndex
DROP INDEX "Deal_workspaceId_idx";

-- DropIndex
DROP INDEX "Deal_stageId_idx";

-- DropIndex
DROP INDEX "Task_workspaceId_isDone_idx";

-- DropIndex
DROP INDEX "PaymentProviderAccount_workspaceId_idx";

-- DropIndex
DROP INDEX "PaymentLink_workspaceId_idx";

-- DropIndex
DROP INDEX "PaymentCoupon_paymentLinkId_idx";

-- DropIndex
DROP INDEX "PaymentTransaction_workspaceId_status_idx";

-- CreateIndex
CREATE INDEX "User_workspaceId_id_idx" ON "User"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "Product_workspaceId_id_idx" ON "Product"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "Product_workspaceId_isActive_id_idx" ON "Product"("workspaceId", "isActive", "id");

-- CreateIndex
CREATE INDEX "Product_workspaceId_type_id_idx" ON "Product"("workspaceId", "type", "id");

-- CreateIndex
CREATE INDEX "Contact_workspaceId_id_idx" ON "Contact"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "Company_workspaceId_id_idx" ON "Company"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "Company_workspaceId_domain_idx" ON "Company"("workspaceId", "domain");

-- CreateIndex
CREATE INDEX "Pipeline_workspaceId_id_idx" ON "Pipeline"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "Deal_workspaceId_id_idx" ON "Deal"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "Deal_stageId_id_idx" ON "Deal"("stageId", "id");

-- CreateIndex
CREATE INDEX "Task_workspaceId_isDone_position_idx" ON "Task"("workspaceId", "isDone", "position");

-- CreateIndex
CREATE INDEX "PaymentProviderAccount_workspaceId_id_idx" ON "PaymentProviderAccount"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "PaymentLink_workspaceId_id_idx" ON "PaymentLink"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "PaymentLink_workspaceId_isActive_id_idx" ON "PaymentLink"("workspaceId", "isActive", "id");

-- CreateIndex
CREATE INDEX "PaymentCoupon_paymentLinkId_id_idx" ON "PaymentCoupon"("paymentLinkId", "id");

-- CreateIndex
CREATE INDEX "PaymentCoupon_workspaceId_id_idx" ON "PaymentCoupon"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "PaymentTransaction_workspaceId_id_idx" ON "PaymentTransaction"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "PaymentTransaction_workspaceId_status_id_idx" ON "PaymentTransaction"("workspaceId", "status", "id");
