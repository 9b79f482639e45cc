import { createClient } from '@redis/client';
import { logError } from '../log.js';
import { commandConnection, connectAtStart, reconnectDelay, redisError, within } from '../redis.js';

/** How long closing waits for the publishes under way. */
const CLOSE_WAIT_MS = 1000;

/**
 * The Redis pub/sub channel of committed events (EVENTS_REDIS_CHANNEL), when REDIS_URL
 * is set: each process publishes its commits' event ids there, and every process's live
 * tail (src/events/live.ts) follows it. A message is `<workspaceId> <ids...>`, the
 * payload PostgreSQL's trigger notifies.
 */
export interface EventChannel {
  /** After a commit: its events' ids. Never throws and never waits; a failure is logged once per outage. */
  publish(workspaceId: string, ids: readonly string[]): void;
  /**
   * One subscriber connection, made now, that hands each message to `message`, and calls
   * `subscribed` once it is subscribed and again after each reconnect (what was published
   * meanwhile is lost to it). `ready` settles once subscribed, or once the first attempt
   * failed (it goes on trying, backing off up to 2 s).
   */
  subscribe(on: { message(payload: string): void; subscribed(): void }): { ready: Promise<void>; stop(): Promise<void> };
  /** Resolves once Redis answers a PING on the publishing connection (readiness, `/readyz`); rejects while it does not. */
  ping(): Promise<void>;
  /** Closes the publishing connection (once the publishes under way are answered, 1 s at most) and every subscriber. */
  close(): Promise<void>;
}

/**
 * Connects the publishing connection: rejects, with REDIS_URL's password masked, when
 * Redis does not answer at start-up (the start stops, as for the rate limit); once
 * running, a lost connection is retried in the background and publishes fail meanwhile.
 */
export async function connectEventChannel({ url, channel }: { url: string; channel: string }): Promise<EventChannel> {
  let running = false;
  // Never queued while disconnected, and a bounded queue: a Redis that is down or silent holds nothing without bound.
  const publisher = createClient(commandConnection(url, () => running));
  // Connection errors show as failed publishes, logged once per outage.
  publisher.on('error', () => {});
  await connectAtStart(url, publisher);
  running = true;
  let failing = false;
  const failed = (error: unknown) => {
    if (failing || !running) return;
    failing = true;
    logError('none', redisError(url, error, 'failed a publish'), 'live events (Redis publish)');
  };
  const subscribers = new Set<{ destroy(): void }>();
  // Publishes under way (bounded by the connection's queue), which closing waits for.
  const pending = new Set<Promise<void>>();
  return {
    publish(workspaceId, ids) {
      if (!running) return;
      try {
        const publishing: Promise<void> = publisher
          .publish(channel, `${workspaceId} ${ids.join(' ')}`)
          .then(() => void (failing = false), failed)
          .finally(() => pending.delete(publishing));
        pending.add(publishing);
      } catch (error) {
        failed(error);
      }
    },
    subscribe(on) {
      let subscribed = false;
      let outage = false;
      let attempted!: () => void;
      const ready = new Promise<void>((resolve) => (attempted = resolve));
      // Lazily made, once Redis has answered at start: a failure is retried, backing off, as long as it is wanted.
      const client = createClient({ url, socket: { reconnectStrategy: reconnectDelay } });
      subscribers.add(client);
      client.on('error', (error) => {
        attempted();
        if (outage || !running) return;
        outage = true;
        logError('none', redisError(url, error, 'dropped the subscription'), 'live events (Redis subscriber)');
      });
      // After a reconnect node-redis subscribes again before it says ready.
      client.on('ready', () => {
        if (!subscribed) return;
        outage = false;
        on.subscribed();
      });
      const started = (async () => {
        await client.connect();
        await client.subscribe(channel, (message) => on.message(message));
        subscribed = true;
        outage = false;
        on.subscribed();
      })()
        .catch(() => {})
        .finally(attempted);
      return {
        ready,
        async stop() {
          subscribers.delete(client);
          client.destroy();
          await started;
        },
      };
    },
    async ping() {
      await publisher.ping();
    },
    // Destroyed, not QUIT: a graceful close would wait on a silent Redis.
    async close() {
      await within(CLOSE_WAIT_MS, Promise.all(pending)).catch(() => {});
      running = false;
      publisher.destroy();
      for (const client of subscribers) client.destroy();
      subscribers.clear();
    },
  };
}
