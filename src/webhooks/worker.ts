import { randomUUID } from 'node:crypto';
import { join, sqltag } from '@prisma/client/runtime/client';
import type { Db } from '../db/client.js';
import { type CommitNotices, DEFAULT_SETTINGS, systemContext } from '../graphql/context.js';
import { writeWithEvents } from '../events/outbox.js';
import type { Represent } from '../events/representation.js';
import type { Loop } from '../jobs/loops.js';
import type { DeliveryOutcome } from '../http/metrics.js';
import { logError } from '../log.js';
import { traceDeliveryAttempt } from '../tracing/tracing.js';
import { attemptAll } from './attempts.js';
import { type AttemptResult, SOCKETS_PER_ORIGIN } from './send.js';

export interface DeliveryConfig {
  timeoutMs: number;
  /** Seconds to wait after each failed attempt; when spent, the delivery has failed. */
  scheduleSeconds: number[];
  disableAfterFailures: number;
  allowPrivateNetworks: boolean;
  /** Attempts this process makes at once. */
  concurrency?: number;
  /** Attempts in flight to one endpoint, across every process: one slow receiver cannot hold every slot. */
  perEndpoint?: number;
  /** How often a process looks for due deliveries that no commit of its own announced. */
  pollMs?: number;
  /** Told each recorded attempt's outcome (the metrics, when kept). */
  counted?: (outcome: DeliveryOutcome, deliveries: number) => void;
  /** Told each attempt's lag, in seconds from when it was due (the metrics, when kept). */
  lagged?: (seconds: number) => void;
}

/** A delivery claimed by this process, with what its attempt needs. */
interface Claimed {
  id: string;
  workspaceId: string;
  endpointId: string;
  eventId: string;
  payload: string;
  attempts: number;
  /** When the attempt was due: its lag is the time from then to the attempt. */
  nextAttemptAt: Date;
  /** When this process's lease ends (ms since the epoch). */
  leaseEnd: number;
}

/** What a round reads of its deliveries' endpoints. */
interface RoundEndpoint {
  id: string;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  consecutiveFailures: number | bigint;
}

const RETRY_AFTER_CAP_SECONDS = 3_600;

/**
 * Runs one statement that records an attempt's outcome, again after a failure (the
 * database refused for a moment: a failover, a full pool) until it succeeds or the
 * lease is about to end. An attempt made and never recorded is made again once the
 * lease runs out: the receiver would get the delivery twice.
 */
async function whileLeased<T>(leaseEnd: number, record: () => Promise<T>): Promise<T> {
  for (let wait = 100; ; wait = Math.min(wait * 2, 1_000)) {
    try {
      return await record();
    } catch (error) {
      if (Date.now() + wait >= leaseEnd) throw error;
      logError(null, error, 'webhook outcome (recorded again shortly)');
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Rows a round looks at: the due deliveries it may claim are among the oldest this many. */
const CANDIDATES = 200;

/**
 * The claim, one statement: up to `limit` due deliveries of active endpoints, oldest
 * first, leaving each endpoint at most `perEndpoint` leased (across processes). Endpoints
 * whose slots are all in flight are left out of the candidates first: otherwise one
 * stalled endpoint's backlog fills the CANDIDATES window and every other endpoint's
 * deliveries wait behind it (head-of-line blocking, API.md section 6). Among the
 * CANDIDATES oldest due, each endpoint's are numbered after its leases still running (a
 * live lease is an attempt in flight, whatever the row's status: a range of the
 * (endpointId, leaseUntil) index), and those within the cap are leased to `owner` until
 * `until`. The UPDATE checks each still due and free: on PostgreSQL a row another
 * process leased, or attempted and rescheduled, meanwhile is re-read after its lock and
 * skipped, so one delivery has one lease at a time. "Still due" is `nextAttemptAt`, null
 * unless pending: a check of `status` there led SQLite to find the chosen rows by
 * scanning every pending delivery (its status index) instead of by key.
 */
export function claimStatement({ now, until, owner, perEndpoint, limit }: { now: Date; until: Date; owner: string; perEndpoint: number; limit: number }) {
  return sqltag`
    WITH "full" AS (
      SELECT f."endpointId" FROM "WebhookDelivery" f WHERE f."leaseUntil" > ${now} GROUP BY f."endpointId" HAVING count(*) >= ${perEndpoint}),
    "due" AS (
      SELECT d."id", d."endpointId", d."nextAttemptAt" FROM "WebhookDelivery" d JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"
      WHERE d."status" = 'pending' AND d."nextAttemptAt" <= ${now} AND (d."leaseUntil" IS NULL OR d."leaseUntil" <= ${now}) AND e."isActive" = ${true}
        AND d."endpointId" NOT IN (SELECT "endpointId" FROM "full")
      ORDER BY d."nextAttemptAt" LIMIT ${CANDIDATES}),
    "leased" AS (
      SELECT l."endpointId", count(*) AS "n" FROM "WebhookDelivery" l
      WHERE l."endpointId" IN (SELECT "endpointId" FROM "due") AND l."leaseUntil" > ${now} GROUP BY l."endpointId"),
    "numbered" AS (
      SELECT "due"."id", "due"."nextAttemptAt", row_number() OVER (PARTITION BY "due"."endpointId" ORDER BY "due"."nextAttemptAt", "due"."id") + coalesce("leased"."n", 0) AS "slot"
      FROM "due" LEFT JOIN "leased" ON "leased"."endpointId" = "due"."endpointId"),
    "chosen" AS (SELECT "id" FROM "numbered" WHERE "slot" <= ${perEndpoint} ORDER BY "nextAttemptAt", "id" LIMIT ${limit})
    UPDATE "WebhookDelivery" SET "leaseOwner" = ${owner}, "leaseUntil" = ${until}
    WHERE "id" IN (SELECT "id" FROM "chosen") AND "nextAttemptAt" <= ${now} AND ("leaseUntil" IS NULL OR "leaseUntil" <= ${now})
    RETURNING "id", "workspaceId", "endpointId", "eventId", "payload", "attempts", "nextAttemptAt"`;
}

/**
 * The delivery worker of one process. Each round claims due deliveries with a lease (one
 * conditional UPDATE: a row leased by another process, or claimed meanwhile, is not
 * taken), attempts them in the background, and records each outcome under its lease. A
 * process killed mid-attempt loses nothing: its lease runs out and any process claims
 * the delivery again. SIGTERM (`stopping`) claims nothing new; `drain` waits for the
 * attempts in flight, which end within the timeout.
 */
export function createDeliveryWorker(prisma: Db, represent: Represent, commits: CommitNotices, config: DeliveryConfig) {
  // A quarter of a process's slots at most for one endpoint: three slow receivers leave room for every other.
  const concurrency = config.concurrency ?? 128;
  const perEndpoint = Math.min(config.perEndpoint ?? SOCKETS_PER_ORIGIN, SOCKETS_PER_ORIGIN);
  const pollMs = config.pollMs ?? 500;
  // Longer than any attempt can take, so a live process never loses its lease mid-attempt.
  const leaseMs = config.timeoutMs + 5_000;
  const owner = randomUUID();
  // Attempts under way in this process, and the rounds that make them.
  let inFlight = 0;
  const rounds = new Set<Promise<void>>();
  let wake: (now: boolean) => void = () => {};
  /** Whether the last claim may have left due deliveries behind for want of room: freed room is then used at once. */
  let backlog = false;

  /** Claims up to `limit` due deliveries (see claimStatement). */
  async function claim(limit: number): Promise<Claimed[]> {
    const now = new Date();
    const leaseEnd = now.getTime() + leaseMs;
    const claimed = await prisma.$queryRaw<(Omit<Claimed, 'attempts' | 'leaseEnd'> & { attempts: number | bigint })[]>(
      claimStatement({ now, until: new Date(leaseEnd), owner, perEndpoint, limit }),
    );
    // Room ran out (the process's, or an endpoint's): more may be due, so freed room is used at once.
    const perEndpointClaimed = new Map<string, number>();
    for (const c of claimed) perEndpointClaimed.set(c.endpointId, (perEndpointClaimed.get(c.endpointId) ?? 0) + 1);
    backlog = claimed.length === limit || [...perEndpointClaimed.values()].some((n) => n >= perEndpoint);
    return claimed.map((c) => ({ ...c, attempts: Number(c.attempts), nextAttemptAt: new Date(c.nextAttemptAt), leaseEnd }));
  }

  /**
   * One round's attempts: its deliveries' endpoints read once, each endpoint's signed and
   * sent on the attempt thread (attempts.ts), every attempt started at the same instant
   * (the `webhook-timestamp` and `last_attempt_at` of each), and each
   * endpoint's outcomes recorded together once its own attempts have ended, its slots
   * then given back (`release`): a slow receiver holds up only its own deliveries.
   */
  async function attemptRound(claimed: Claimed[], release: (slots: number) => void): Promise<void> {
    let endpoints: Map<string, RoundEndpoint>;
    try {
      const endpointIds = [...new Set(claimed.map((d) => d.endpointId))];
      const rows = await prisma.$queryRaw<RoundEndpoint[]>(sqltag`
        SELECT "id", "url", "secret", "previousSecret", "previousSecretExpiresAt", "consecutiveFailures" FROM "WebhookEndpoint" WHERE "id" IN (${join(endpointIds)})`);
      endpoints = new Map(rows.map((e) => [e.id, e]));
    } catch (error) {
      release(claimed.length); // nothing was attempted
      throw error;
    }
    const byEndpoint = new Map<string, Claimed[]>();
    for (const delivery of claimed) {
      const group = byEndpoint.get(delivery.endpointId);
      if (group) group.push(delivery);
      else byEndpoint.set(delivery.endpointId, [delivery]);
    }
    const at = new Date();
    const outcomes = await Promise.allSettled(
      [...byEndpoint].map(async ([endpointId, deliveries]) => {
        try {
          const endpoint = endpoints.get(endpointId);
          if (!endpoint) return; // deleted meanwhile: its deliveries went with it
          const { results } = await attemptAll({
            url: endpoint.url,
            secrets: [endpoint.secret, ...(endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > at ? [endpoint.previousSecret] : [])],
            at: at.getTime(),
            deliveries: deliveries.map(({ eventId, payload }) => ({ eventId, payload })),
            options: { timeoutMs: config.timeoutMs, allowPrivate: config.allowPrivateNetworks },
          });
          for (const delivery of deliveries) config.lagged?.((at.getTime() - delivery.nextAttemptAt.getTime()) / 1000);
          const answeredAt = Date.now();
          const attempted = deliveries.map((delivery, i) => ({ delivery, result: results[i]! }));
          await recordSuccesses(attempted.filter((a) => a.result.ok), at, endpoint);
          for (const { delivery, result } of attempted) {
            // A failure's outcome (retrying or failed) is known once it is recorded; a lease lost meanwhile recorded nothing.
            const outcome = result.ok ? 'succeeded' : await recordFailure(delivery, at, result);
            if (outcome) {
              traceDeliveryAttempt({ eventId: delivery.eventId, deliveryId: delivery.id, endpointUrl: endpoint.url, attempt: delivery.attempts + 1, startedAt: at.getTime(), endedAt: answeredAt, status: result.status, error: result.error, outcome });
            }
          }
        } finally {
          release(deliveries.length);
        }
      }),
    );
    const failed = outcomes.find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** One endpoint's successes with the same answer are one UPDATE (each under this process's lease: one lost meanwhile writes nothing). */
  async function recordSuccesses(succeeded: { delivery: Claimed; result: AttemptResult }[], at: Date, endpoint: RoundEndpoint): Promise<void> {
    if (succeeded.length === 0) return;
    const leaseEnd = succeeded[0]!.delivery.leaseEnd; // one round, one claim
    const byAnswer = new Map<string, { result: AttemptResult; ids: string[] }>();
    for (const { delivery, result } of succeeded) {
      const key = JSON.stringify([result.status, result.body]);
      const group = byAnswer.get(key) ?? byAnswer.set(key, { result, ids: [] }).get(key)!;
      group.ids.push(delivery.id);
    }
    for (const { result, ids } of byAnswer.values()) {
      const recorded = await whileLeased(leaseEnd, () =>
        prisma.$executeRaw(sqltag`
          UPDATE "WebhookDelivery" SET "status" = 'succeeded', "attempts" = "attempts" + 1, "lastAttemptAt" = ${at}, "nextAttemptAt" = NULL,
            "responseStatus" = ${result.status}, "responseBody" = ${result.body}, "error" = NULL, "leaseOwner" = NULL, "leaseUntil" = NULL
          WHERE "id" IN (${join(ids)}) AND "leaseOwner" = ${owner}`),
      );
      if (recorded > 0) config.counted?.('succeeded', recorded);
    }
    // A success ends the endpoint's run of failures (read with the round's endpoints: most have none to reset).
    if (Number(endpoint.consecutiveFailures) > 0) {
      await whileLeased(leaseEnd, () => prisma.$executeRaw`UPDATE "WebhookEndpoint" SET "consecutiveFailures" = 0 WHERE "id" = ${endpoint.id}`);
    }
  }

  /** A failed attempt: pending again after the schedule's next delay, or failed when it is spent; one more failure for its endpoint. Its outcome, unless the lease was lost. */
  async function recordFailure(delivery: Claimed, at: Date, result: AttemptResult): Promise<DeliveryOutcome | undefined> {
    const attempts = delivery.attempts + 1;
    const delay = config.scheduleSeconds[attempts - 1];
    const next = delay === undefined ? null : new Date(Date.now() + nextDelayMs(delay, result.retryAfterSeconds));
    const { count } = await whileLeased(delivery.leaseEnd, () =>
      prisma.webhookDelivery.updateMany({
        where: { id: delivery.id, leaseOwner: owner },
        data: { status: next ? 'pending' : 'failed', attempts, lastAttemptAt: at, nextAttemptAt: next, responseStatus: result.status, responseBody: result.body, error: result.error, leaseOwner: null, leaseUntil: null },
      }),
    );
    if (count === 0) return undefined;
    const outcome = next ? 'retrying' : 'failed';
    config.counted?.(outcome, 1);
    await countFailure(delivery);
    return outcome;
  }

  /** One more failed attempt for the endpoint (not a change of the record: `updated_at` stays); at the limit, it is disabled. */
  async function countFailure(delivery: Claimed): Promise<void> {
    const [counted] = await whileLeased(
      delivery.leaseEnd,
      () => prisma.$queryRaw<{ consecutiveFailures: number | bigint }[]>`
        UPDATE "WebhookEndpoint" SET "consecutiveFailures" = "consecutiveFailures" + 1 WHERE "id" = ${delivery.endpointId} RETURNING "consecutiveFailures"`,
    );
    if (!counted || Number(counted.consecutiveFailures) < config.disableAfterFailures) return;
    // Disabled as any write is: through the recorder, so `webhook_endpoint.updated` is recorded (actor: the service itself).
    // The workspace's currency plays no part in disabling an endpoint.
    const context = systemContext(prisma, { id: delivery.workspaceId, defaultCurrency: 'USD' }, { ...DEFAULT_SETTINGS, allowPrivateNetworks: config.allowPrivateNetworks }, commits);
    await whileLeased(delivery.leaseEnd, () =>
      writeWithEvents(context, represent, { actor: context.actor, requestId: null }, (db) =>
        db.webhookEndpoint.updateMany({ where: { id: delivery.endpointId, isActive: true }, data: { isActive: false, disabledReason: 'failing' } }),
      ),
    );
  }

  const loop: Loop = {
    name: 'webhook-deliveries',
    // Under a stream of writes, each commit's wake-up would start a round of one delivery: 100 ms lets them gather.
    wakeIntervalMs: 100,
    async run(stopping) {
      if (stopping()) return pollMs;
      const room = concurrency - inFlight;
      if (room <= 0) return pollMs;
      const claimed = await claim(room);
      if (claimed.length > 0) {
        inFlight += claimed.length;
        const round: Promise<void> = attemptRound(claimed, (slots) => {
          inFlight -= slots;
          // Without a backlog, the next commit's wake-up (at most one round per wake interval) claims what comes:
          // a round per freed slot would cost a claim's statements per delivery under a stream of writes.
          wake(backlog);
        })
          // Left unrecorded, the leases run out and the deliveries are attempted again.
          .catch((error) => logError(null, error, 'webhook delivery'))
          .finally(() => rounds.delete(round));
        rounds.add(round);
      }
      return claimed.length === room ? 0 : pollMs;
    },
  };

  return {
    loop,
    /** Called by the loop runner with its wake-up for this loop. */
    setWake(fn: (now: boolean) => void) {
      wake = fn;
    },
    /** Waits for the attempts in flight (each ends within the timeout). */
    async drain(): Promise<void> {
      while (rounds.size > 0) await Promise.all([...rounds]);
    },
  };
}

/** The schedule's delay plus up to 10% jitter, or a longer Retry-After (at most an hour). */
function nextDelayMs(scheduledSeconds: number, retryAfterSeconds: number | null): number {
  const scheduled = scheduledSeconds * 1000 * (1 + Math.random() * 0.1);
  const asked = retryAfterSeconds === null ? 0 : Math.min(retryAfterSeconds, RETRY_AFTER_CAP_SECONDS) * 1000;
  return Math.max(scheduled, asked);
}
