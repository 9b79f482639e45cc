import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { eventRetentionLoop } from '../events/retention.js';
import { represent } from '../graphql/schema.js';
import { onDeliveriesQueued } from '../webhooks/queue.js';
import { createDeliveryWorker } from '../webhooks/worker.js';
import { type RunningLoops, startLoops } from './loops.js';

export type BackgroundConfig = Pick<Config, 'EVENT_RETENTION_DAYS'> &
  Partial<Pick<Config, 'WEBHOOKS_DELIVER' | 'WEBHOOK_TIMEOUT_SECONDS' | 'WEBHOOK_RETRY_SCHEDULE' | 'WEBHOOK_DISABLE_AFTER_FAILURES' | 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'>> & {
    /** Tests: how often the delivery worker looks for due deliveries no commit of this process announced. */
    webhookPollMs?: number;
  };

/**
 * Every loop a serving process runs beside its requests (each process of a cluster, each
 * instance on one database): the event purge and, unless WEBHOOKS_DELIVER=false, the
 * webhook delivery worker, woken at once by this process's commits that queue deliveries.
 */
export function startBackgroundWork(database: Database, config: BackgroundConfig): Pick<RunningLoops, 'stop'> {
  const deliver = config.WEBHOOKS_DELIVER ?? true;
  const worker = deliver
    ? createDeliveryWorker(database.prisma, represent, {
        timeoutMs: (config.WEBHOOK_TIMEOUT_SECONDS ?? 10) * 1000,
        scheduleSeconds: config.WEBHOOK_RETRY_SCHEDULE ?? [5, 300, 1800, 7200, 18000, 36000, 36000],
        disableAfterFailures: config.WEBHOOK_DISABLE_AFTER_FAILURES ?? 100,
        allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? false,
        pollMs: config.webhookPollMs,
      })
    : undefined;
  const loops = startLoops([eventRetentionLoop(database.prisma, config.EVENT_RETENTION_DAYS), ...(worker ? [worker.loop] : [])]);
  const wake = () => loops.wake('webhook-deliveries');
  worker?.setWake(() => loops.wake('webhook-deliveries', true));
  const unsubscribe = worker ? onDeliveriesQueued(wake) : () => {};
  return {
    async stop() {
      unsubscribe();
      await loops.stop();
      await worker?.drain();
    },
  };
}
