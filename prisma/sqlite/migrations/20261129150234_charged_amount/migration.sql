-- AlterTable
ALTER TABLE "PaymentTransaction" ADD COLUMN "chargedAmount" DECIMAL;
