import type { Db } from '../db/client.js';

// For the metrics, read at each scrape: each is one COUNT over the partial index of pending
// deliveries (status, nextAttemptAt), however many finished deliveries the table holds.

/** Deliveries waiting for an attempt, due or scheduled for later. */
export const countPendingDeliveries = (prisma: Db): Promise<number> => prisma.webhookDelivery.count({ where: { status: 'pending' } });

/** Pending deliveries already due: the backlog the delivery workers have not caught up with. */
export const countDueDeliveries = (prisma: Db, now = new Date()): Promise<number> =>
  prisma.webhookDelivery.count({ where: { status: 'pending', nextAttemptAt: { lte: now } } });
