-- AlterTable
ALTER TABLE "Checkout" ADD COLUMN "nextAction" JSONB;
ALTER TABLE "Checkout" ADD COLUMN "providerObjectId" TEXT;
ALTER TABLE "Checkout" ADD COLUMN "reconcileAt" DATETIME;

-- AlterTable
ALTER TABLE "PaymentProviderAccount" ADD COLUMN "credentialsHint" TEXT;
ALTER TABLE "PaymentProviderAccount" ADD COLUMN "mode" TEXT;
ALTER TABLE "PaymentProviderAccount" ADD COLUMN "sealedCredentials" TEXT;

-- CreateTable
CREATE TABLE "PaymentRefund" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "transactionId" TEXT NOT NULL,
    "amount" DECIMAL NOT NULL,
    "currency" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "failureReason" TEXT,
    "providerReference" TEXT,
    "metadata" JSONB NOT NULL,
    "attemptAt" DATETIME,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "PaymentRefund_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "PaymentRefund_transactionId_fkey" FOREIGN KEY ("transactionId") REFERENCES "PaymentTransaction" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ProviderWebhookReceipt" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "accountId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ProviderWebhookReceipt_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "PaymentProviderAccount" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- AlterTable: columns added in place (rebuilding the table would drop its triggers: list counts, search)
ALTER TABLE "PaymentTransaction" ADD COLUMN "chargeReference" TEXT;
ALTER TABLE "PaymentTransaction" ADD COLUMN "amountRefunded" DECIMAL NOT NULL DEFAULT 0;
ALTER TABLE "PaymentTransaction" ADD COLUMN "planCheckoutId" TEXT REFERENCES "Checkout" ("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "PaymentTransaction" ADD COLUMN "planCharge" INTEGER;
ALTER TABLE "PaymentTransaction" ADD COLUMN "disputeStatus" TEXT;
ALTER TABLE "PaymentTransaction" ADD COLUMN "disputeReference" TEXT;
ALTER TABLE "PaymentTransaction" ADD COLUMN "disputeAmount" DECIMAL;
ALTER TABLE "PaymentTransaction" ADD COLUMN "disputeReason" TEXT;
ALTER TABLE "PaymentTransaction" ADD COLUMN "disputeOpenedAt" DATETIME;
ALTER TABLE "PaymentTransaction" ADD COLUMN "disputeClosedAt" DATETIME;
CREATE INDEX "PaymentTransaction_planCheckoutId_id_idx" ON "PaymentTransaction"("planCheckoutId", "id");

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

-- Backfill: a checkout's own transaction is charge 1 of its plan.
UPDATE "PaymentTransaction" SET "planCheckoutId" = (SELECT "id" FROM "Checkout" WHERE "Checkout"."transactionId" = "PaymentTransaction"."id"), "planCharge" = 1 WHERE "id" IN (SELECT "transactionId" FROM "Checkout");
