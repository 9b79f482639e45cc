-- AlterTable
ALTER TABLE "Checkout" ADD COLUMN     "nextAction" JSONB,
ADD COLUMN     "providerObjectId" TEXT,
ADD COLUMN     "reconcileAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "PaymentProviderAccount" ADD COLUMN     "credentialsHint" TEXT,
ADD COLUMN     "mode" TEXT,
ADD COLUMN     "sealedCredentials" TEXT;

-- AlterTable
ALTER TABLE "PaymentTransaction" ADD COLUMN     "amountRefunded" DECIMAL(65,30) NOT NULL DEFAULT 0,
ADD COLUMN     "chargeReference" TEXT,
ADD COLUMN     "disputeAmount" DECIMAL(65,30),
ADD COLUMN     "disputeClosedAt" TIMESTAMP(3),
ADD COLUMN     "disputeOpenedAt" TIMESTAMP(3),
ADD COLUMN     "disputeReason" TEXT,
ADD COLUMN     "disputeReference" TEXT,
ADD COLUMN     "disputeStatus" TEXT,
ADD COLUMN     "planCharge" INTEGER,
ADD COLUMN     "planCheckoutId" TEXT;

-- CreateTable
CREATE TABLE "PaymentRefund" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "transactionId" TEXT NOT NULL,
    "amount" DECIMAL(65,30) NOT NULL,
    "currency" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "failureReason" TEXT,
    "providerReference" TEXT,
    "metadata" JSONB NOT NULL,
    "attemptAt" TIMESTAMP(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

CONSTRAINT "PaymentRefund_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ProviderWebhookReceipt" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

CONSTRAINT "ProviderWebhookReceipt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PaymentRefund_workspaceId_id_idx" ON "PaymentRefund"("workspaceId", "id");

-- CreateIndex
CREATE INDEX "PaymentRefund_workspaceId_updatedAt_id_idx" ON "PaymentRefund"("workspaceId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "PaymentRefund_workspaceId_createdAt_id_idx" ON "PaymentRefund"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "PaymentRefund_transactionId_id_idx" ON "PaymentRefund"("transactionId", "id");

-- CreateIndex
CREATE INDEX "PaymentRefund_attemptAt_idx" ON "PaymentRefund"("attemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "PaymentRefund_transactionId_providerReference_key" ON "PaymentRefund"("transactionId", "providerReference");

-- CreateIndex
CREATE UNIQUE INDEX "ProviderWebhookReceipt_accountId_eventId_key" ON "ProviderWebhookReceipt"("accountId", "eventId");

-- CreateIndex
CREATE INDEX "Checkout_reconcileAt_idx" ON "Checkout"("reconcileAt");

-- CreateIndex
CREATE INDEX "PaymentTransaction_planCheckoutId_id_idx" ON "PaymentTransaction"("planCheckoutId", "id");

-- AddForeignKey
ALTER TABLE "PaymentTransaction" ADD CONSTRAINT "PaymentTransaction_planCheckoutId_fkey" FOREIGN KEY ("planCheckoutId") REFERENCES "Checkout"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PaymentRefund" ADD CONSTRAINT "PaymentRefund_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PaymentRefund" ADD CONSTRAINT "PaymentRefund_transactionId_fkey" FOREIGN KEY ("transactionId") REFERENCES "PaymentTransaction"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ProviderWebhookReceipt" ADD CONSTRAINT "ProviderWebhookReceipt_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "PaymentProviderAccount"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: a checkout's own transaction is charge 1 of its plan.
UPDATE "PaymentTransaction" t SET "planCheckoutId" = c."id", "planCharge" = 1 FROM "Checkout" c WHERE c."transactionId" = t."id";
