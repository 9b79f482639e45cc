-- AlterTable: a checkout's own exact amounts. Checkouts made before them take theirs from
-- their transaction's metadata.checkout.amounts (the quote as it was shown), then the
-- columns become required.
ALTER TABLE "Checkout" ADD COLUMN     "currency" TEXT,
ADD COLUMN     "discount" DECIMAL(65,30),
ADD COLUMN     "installmentAmount" DECIMAL(65,30),
ADD COLUMN     "installments" INTEGER,
ADD COLUMN     "interest" DECIMAL(65,30),
ADD COLUMN     "subtotal" DECIMAL(65,30),
ADD COLUMN     "total" DECIMAL(65,30);

UPDATE "Checkout" c SET
  "currency" = t."currency",
  "subtotal" = (t."metadata" #>> '{checkout,amounts,subtotal}')::DECIMAL(65,30),
  "discount" = (t."metadata" #>> '{checkout,amounts,discount}')::DECIMAL(65,30),
  "interest" = (t."metadata" #>> '{checkout,amounts,interest}')::DECIMAL(65,30),
  "total" = t."amount",
  "installments" = (t."metadata" #>> '{checkout,amounts,installments}')::INTEGER,
  "installmentAmount" = (t."metadata" #>> '{checkout,amounts,installmentAmount}')::DECIMAL(65,30)
FROM "PaymentTransaction" t WHERE t."id" = c."transactionId";

ALTER TABLE "Checkout" ALTER COLUMN "currency" SET NOT NULL,
ALTER COLUMN "discount" SET NOT NULL,
ALTER COLUMN "installmentAmount" SET NOT NULL,
ALTER COLUMN "installments" SET NOT NULL,
ALTER COLUMN "interest" SET NOT NULL,
ALTER COLUMN "subtotal" SET NOT NULL,
ALTER COLUMN "total" SET NOT NULL;
