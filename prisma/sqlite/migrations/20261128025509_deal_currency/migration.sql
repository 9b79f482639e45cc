-- AlterTable (a column added in place: rebuilding the table would drop its list-count triggers)
ALTER TABLE "Deal" ADD COLUMN "currency" TEXT NOT NULL DEFAULT 'USD';

-- Existing deals take their workspace's current default currency.
UPDATE "Deal" SET "currency" = (SELECT "defaultCurrency" FROM "Workspace" WHERE "Workspace"."id" = "Deal"."workspaceId");
