-- AlterTable
ALTER TABLE "PaymentTransaction" ADD COLUMN     "contactId" TEXT;

-- CreateIndex
CREATE INDEX "PaymentTransaction_contactId_id_idx" ON "PaymentTransaction"("contactId", "id");

-- AddForeignKey
ALTER TABLE "PaymentTransaction" ADD CONSTRAINT "PaymentTransaction_contactId_fkey" FOREIGN KEY ("contactId") REFERENCES "Contact"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Backfill: a checkout's payer, as its transaction's metadata names them, when the contact is still there.
UPDATE "PaymentTransaction" t SET "contactId" = t."metadata"->'checkout'->>'contact_id'
WHERE EXISTS (SELECT 1 FROM "Contact" c WHERE c."id" = t."metadata"->'checkout'->>'contact_id' AND c."workspaceId" = t."workspaceId");
