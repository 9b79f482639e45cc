-- AlterTable
ALTER TABLE "PaymentTransaction" ADD COLUMN     "chargedAmount" DECIMAL(65,30);
