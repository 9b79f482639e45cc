-- AlterTable
ALTER TABLE "Checkout" ADD COLUMN     "providerClaimUntil" TIMESTAMP(3);
