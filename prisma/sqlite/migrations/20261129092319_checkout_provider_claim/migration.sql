-- AlterTable
ALTER TABLE "Checkout" ADD COLUMN "providerClaimUntil" DATETIME;
