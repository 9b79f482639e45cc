-- AlterTable: a column added in place (a rebuilt table would lose its triggers).
ALTER TABLE "PaymentTransaction" ADD COLUMN "contactId" TEXT REFERENCES "Contact" ("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- CreateIndex
CREATE INDEX "PaymentTransaction_contactId_id_idx" ON "PaymentTransaction"("contactId", "id");

-- Backfill: a checkout's payer, as its transaction's metadata names them, when the contact is still there.
UPDATE "PaymentTransaction" SET "contactId" = json_extract("metadata", '$.checkout.contact_id')
WHERE json_extract("metadata", '$.checkout.contact_id') IN (SELECT "id" FROM "Contact" c WHERE c."workspaceId" = "PaymentTransaction"."workspaceId");
