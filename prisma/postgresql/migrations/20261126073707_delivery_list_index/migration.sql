-- DropIndex
DROP INDEX "WebhookDelivery_workspaceId_id_idx";
