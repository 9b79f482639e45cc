import { type Config, loadConfig } from '../config.js';
import type { Metrics } from '../http/metrics.js';
import { counterCompactionLoop } from '../db/counter-slots.js';
import { checkoutExpiryLoop } from '../modules/checkouts/expiry.js';
import { reconcileLoop } from '../modules/checkouts/reconcile.js';
import { refundRetryLoop } from '../modules/refunds/refund-retries.js';
import { trashPurgeLoop } from '../modules/trash/purge.js';
import { eventRetentionLoop } from '../events/retention.js';
import { searchBackfillLoop } from '../search/backfill.js';
import { duplicateKeysLoop } from '../modules/duplicates/backfill.js';
import type { Service } from '../service.js';
import { createDeliveryWorker } from '../webhooks/worker.js';
import { type RunningLoops, startLoops } from './loops.js';

const DEFAULTS = loadConfig({});

export type BackgroundConfig = Pick<Config, 'EVENT_RETENTION_DAYS'> &
  Partial<Pick<Config, 'CHECKOUT_EXPIRY_MINUTES' | 'WEBHOOKS_DELIVER' | 'WEBHOOK_TIMEOUT_SECONDS' | 'WEBHOOK_RETRY_SCHEDULE' | 'WEBHOOK_DISABLE_AFTER_FAILURES' | 'WEBHOOK_ALLOW_PRIVATE_NETWORKS' | 'TRASH_RETENTION_DAYS'>> & {
    /** Tests: how often the delivery worker looks for due deliveries no commit of this process announced. */
    webhookPollMs?: number;
    /** Tests: the delivery worker's attempts in flight per process, and per endpoint. */
    webhookConcurrency?: number;
    webhookPerEndpoint?: number;
  };

/**
 * Every loop a serving process runs beside its requests (each process of a cluster, each
 * instance on one database): the event purge, the fold of the counters' slots (list counts
 * and report totals), the search index's and the duplicates' keys' backfills, the checkout expiry and, unless
 * WEBHOOKS_DELIVER=false, the webhook delivery worker, woken at once by this service's
 * commits that queue deliveries. `metrics` (the server's, when kept) count the deliveries' outcomes.
 */
export function startBackgroundWork(service: Service, config: BackgroundConfig, metrics?: Metrics): Pick<RunningLoops, 'stop'> {
  const { database, represent, commits } = service;
  // What the caller leaves out is the environment's default (config.ts holds each one once).
  const settings = { ...DEFAULTS, ...config };
  const worker = settings.WEBHOOKS_DELIVER
    ? createDeliveryWorker(database.background, represent, commits, {
        timeoutMs: settings.WEBHOOK_TIMEOUT_SECONDS * 1000,
        scheduleSeconds: settings.WEBHOOK_RETRY_SCHEDULE,
        disableAfterFailures: settings.WEBHOOK_DISABLE_AFTER_FAILURES,
        allowPrivateNetworks: settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        pollMs: config.webhookPollMs,
        concurrency: config.webhookConcurrency,
        perEndpoint: config.webhookPerEndpoint,
        counted: metrics?.webhookDelivery,
        lagged: metrics?.webhookDeliveryLag,
      })
    : undefined;
  const serviceSettings = { allowPrivateNetworks: settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS, checkoutExpiryMinutes: settings.CHECKOUT_EXPIRY_MINUTES, streamBufferEvents: settings.STREAM_BUFFER_EVENTS, payments: service.payments, trashRetentionDays: settings.TRASH_RETENTION_DAYS };
  const loops = startLoops([eventRetentionLoop(database.background, settings.EVENT_RETENTION_DAYS), counterCompactionLoop(database), searchBackfillLoop(database.background, represent), duplicateKeysLoop(database.background),
    checkoutExpiryLoop(database.background, represent, commits, serviceSettings),
    // Payment providers (API.md section 11): checkouts they said nothing of, and refunds they did not answer.
    reconcileLoop(database.background, represent, commits, serviceSettings),
    refundRetryLoop(database.background, represent, commits, serviceSettings),
    trashPurgeLoop(database.background, represent, commits, serviceSettings),
    ...(worker ? [worker.loop] : [])]);
  const wake = () => loops.wake('webhook-deliveries');
  worker?.setWake((now) => loops.wake('webhook-deliveries', now));
  const unsubscribe = worker ? commits.onDeliveriesQueued(wake) : () => {};
  return {
    async stop() {
      unsubscribe();
      await loops.stop();
      await worker?.drain();
    },
  };
}
