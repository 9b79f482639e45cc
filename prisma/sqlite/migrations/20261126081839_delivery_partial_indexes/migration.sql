-- DropIndex
DROP INDEX "WebhookDelivery_createdAt_idx";

-- Partial indexes, which the Prisma schema cannot declare (models.prisma names them in
-- comments): a queued delivery enters the lease index only when leased, and leaves the
-- claim's index when it is no longer pending. Each index a queued delivery skips is one
-- page fewer that its write commits.
DROP INDEX "WebhookDelivery_endpointId_leaseUntil_idx";
CREATE INDEX "WebhookDelivery_endpointId_leaseUntil_idx" ON "WebhookDelivery"("endpointId", "leaseUntil") WHERE "leaseUntil" IS NOT NULL;
DROP INDEX "WebhookDelivery_status_nextAttemptAt_idx";
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt") WHERE "status" = 'pending';
