-- AlterTable
ALTER TABLE "Deal" ADD COLUMN     "currency" TEXT NOT NULL DEFAULT 'USD';

-- Existing deals take their workspace's current default currency.
UPDATE "Deal" SET "currency" = "Workspace"."defaultCurrency" FROM "Workspace" WHERE "Workspace"."id" = "Deal"."workspaceId";
