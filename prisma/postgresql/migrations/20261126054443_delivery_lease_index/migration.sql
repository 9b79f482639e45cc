-- CreateIndex
CREATE INDEX "WebhookDelivery_endpointId_leaseUntil_idx" ON "WebhookDelivery"("endpointId", "leaseUntil");
