-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Checkout" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "paymentLinkId" TEXT NOT NULL,
    "transactionId" TEXT NOT NULL,
    "couponId" TEXT,
    "couponReleasedAt" DATETIME,
    "expiresAt" DATETIME,
    "currency" TEXT NOT NULL,
    "subtotal" DECIMAL NOT NULL,
    "discount" DECIMAL NOT NULL,
    "interest" DECIMAL NOT NULL,
    "total" DECIMAL NOT NULL,
    "installments" INTEGER NOT NULL,
    "installmentAmount" DECIMAL NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Checkout_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Checkout_paymentLinkId_fkey" FOREIGN KEY ("paymentLinkId") REFERENCES "PaymentLink" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Checkout_transactionId_fkey" FOREIGN KEY ("transactionId") REFERENCES "PaymentTransaction" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Checkout_couponId_fkey" FOREIGN KEY ("couponId") REFERENCES "PaymentCoupon" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
-- Checkouts made before their own amounts take them from their transaction's metadata.checkout.amounts.
INSERT INTO "new_Checkout" ("couponId", "couponReleasedAt", "createdAt", "expiresAt", "id", "paymentLinkId", "token", "transactionId", "workspaceId", "currency", "subtotal", "discount", "interest", "total", "installments", "installmentAmount")
SELECT c."couponId", c."couponReleasedAt", c."createdAt", c."expiresAt", c."id", c."paymentLinkId", c."token", c."transactionId", c."workspaceId", t."currency",
  json_extract(t."metadata", '$.checkout.amounts.subtotal'), json_extract(t."metadata", '$.checkout.amounts.discount'), json_extract(t."metadata", '$.checkout.amounts.interest'),
  t."amount", json_extract(t."metadata", '$.checkout.amounts.installments'), json_extract(t."metadata", '$.checkout.amounts.installmentAmount')
FROM "Checkout" c JOIN "PaymentTransaction" t ON t."id" = c."transactionId";
DROP TABLE "Checkout";
ALTER TABLE "new_Checkout" RENAME TO "Checkout";
CREATE UNIQUE INDEX "Checkout_token_key" ON "Checkout"("token");
CREATE UNIQUE INDEX "Checkout_transactionId_key" ON "Checkout"("transactionId");
CREATE INDEX "Checkout_expiresAt_idx" ON "Checkout"("expiresAt");
CREATE INDEX "Checkout_couponId_idx" ON "Checkout"("couponId");
CREATE INDEX "Checkout_paymentLinkId_idx" ON "Checkout"("paymentLinkId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
