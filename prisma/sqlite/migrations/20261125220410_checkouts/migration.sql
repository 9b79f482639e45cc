-- AlterTable
ALTER TABLE "PaymentProviderAccount" ADD COLUMN "webhookSecret" TEXT;

-- CreateTable
CREATE TABLE "Checkout" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "paymentLinkId" TEXT NOT NULL,
    "transactionId" TEXT NOT NULL,
    "couponId" TEXT,
    "couponReleasedAt" DATETIME,
    "expiresAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Checkout_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Checkout_paymentLinkId_fkey" FOREIGN KEY ("paymentLinkId") REFERENCES "PaymentLink" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Checkout_transactionId_fkey" FOREIGN KEY ("transactionId") REFERENCES "PaymentTransaction" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Checkout_couponId_fkey" FOREIGN KEY ("couponId") REFERENCES "PaymentCoupon" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Checkout_token_key" ON "Checkout"("token");

-- CreateIndex
CREATE UNIQUE INDEX "Checkout_transactionId_key" ON "Checkout"("transactionId");

-- CreateIndex
CREATE INDEX "Checkout_expiresAt_idx" ON "Checkout"("expiresAt");

-- CreateIndex
CREATE INDEX "Checkout_couponId_idx" ON "Checkout"("couponId");

-- CreateIndex
CREATE INDEX "Checkout_paymentLinkId_idx" ON "Checkout"("paymentLinkId");
