-- AlterTable
ALTER TABLE "PaymentProviderAccount" ADD COLUMN     "webhookSecret" TEXT;

-- CreateTable
CREATE TABLE "Checkout" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "paymentLinkId" TEXT NOT NULL,
    "transactionId" TEXT NOT NULL,
    "couponId" TEXT,
    "couponReleasedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Checkout_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "Checkout" ADD CONSTRAINT "Checkout_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Checkout" ADD CONSTRAINT "Checkout_paymentLinkId_fkey" FOREIGN KEY ("paymentLinkId") REFERENCES "PaymentLink"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Checkout" ADD CONSTRAINT "Checkout_transactionId_fkey" FOREIGN KEY ("transactionId") REFERENCES "PaymentTransaction"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Checkout" ADD CONSTRAINT "Checkout_couponId_fkey" FOREIGN KEY ("couponId") REFERENCES "PaymentCoupon"("id") ON DELETE SET NULL ON UPDATE CASCADE;
