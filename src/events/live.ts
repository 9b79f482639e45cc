import pg from 'pg';
import type { Db } from '../db/client.js';
import { firstIdAt } from '../db/ids.js';
import type { DatabaseTarget } from '../db/database-url.js';
import type { EventFeed, EventStreamSubscription } from '../graphql/context.js';
import { logError } from '../log.js';
import type { StoredEvent } from './deliveries.js';

/** The PostgreSQL channel the Event table's trigger notifies on commit (see its migration). */
export const EVENTS_CHANNEL = 'salesgraph_events';

/** How often the embedded database's log is read for new events while someone listens. */
const POLL_MS = 100;
/**
 * How far back each read of the embedded database looks: ids are made inside the write's
 * transaction, and two processes (a cluster's workers, the command line) can commit in
 * another order than their ids within a moment; ids already sent are skipped.
 */
const LOOK_BACK_MS = 300;
/** How long an id handed on is remembered (beyond any look-back or catch-up's reach). */
const HANDED_ON_MS = 60_000;
/** Rows per read of the log. */
const BATCH = 500;

interface Subscriber extends EventStreamSubscription {
  workspaceId: string;
  keyId: string | undefined;
  push(events: readonly StoredEvent[]): void;
}

/**
 * The live tail of the event log (API.md section 10), one per process: whatever process
 * or instance commits events, every subscriber of that workspace in this process gets
 * them. On PostgreSQL the Event table's trigger notifies each commit's ids (LISTEN/NOTIFY,
 * delivered only if the transaction commits); on the embedded database, one process's
 * reader polls the log while anyone listens. Each subscriber has a bounded queue: a reader
 * that falls `bufferEvents` behind is dropped, never buffered without bound.
 */
export class LiveEvents implements EventFeed {
  readonly #subscribers = new Map<string, Set<Subscriber>>();
  readonly #perKey = new Map<string, number>();
  #closed = false;
  #source: { stop(): Promise<void>; ready: Promise<void> } | undefined;

  constructor(
    private readonly db: Db,
    private readonly target: DatabaseTarget,
    private readonly limits: { streamsPerKey: number; bufferEvents: number },
  ) {}

  /**
   * A subscriber to the workspace's committed events, queued from now on; `undefined` when
   * the key already holds `streamsPerKey` streams in this process (the caller answers 429).
   */
  subscribe(workspaceId: string, keyId: string | undefined): EventStreamSubscription | undefined {
    if (this.#closed) return undefined;
    if (keyId !== undefined && (this.#perKey.get(keyId) ?? 0) >= this.limits.streamsPerKey) return undefined;
    if (keyId !== undefined) this.#perKey.set(keyId, (this.#perKey.get(keyId) ?? 0) + 1);
    const subscriber = this.#newSubscriber(workspaceId, keyId);
    const set = this.#subscribers.get(workspaceId) ?? this.#subscribers.set(workspaceId, new Set()).get(workspaceId)!;
    set.add(subscriber);
    this.#source ??= this.target.provider === 'postgresql' ? this.#listen(this.target.url) : this.#poll();
    return subscriber;
  }

  /**
   * Settles once this process follows the commits (PostgreSQL: its LISTEN is in place, or its
   * first attempt failed): a subscriber waits for it before it answers, so no commit after
   * its answer can pass unseen.
   */
  ready(): Promise<void> {
    return this.#source?.ready ?? Promise.resolve();
  }

  /** Ends every stream (SIGTERM) and stops reading; subscribing afterwards is refused. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const set of this.#subscribers.values()) for (const s of set) s.end();
    await this.#source?.stop();
  }

  /** Streams open in this process (the metrics' gauge, tests). */
  get open(): number {
    let n = 0;
    for (const set of this.#subscribers.values()) n += set.size;
    return n;
  }

  #newSubscriber(workspaceId: string, keyId: string | undefined): Subscriber {
    const queue: StoredEvent[] = [];
    let wake: (() => void) | undefined;
    let state: 'open' | 'ended' | 'overflowed' = 'open';
    let closed!: () => void;
    const closing = new Promise<void>((resolve) => (closed = resolve));
    const release = () => {
      this.#subscribers.get(workspaceId)?.delete(subscriber);
      if (this.#subscribers.get(workspaceId)?.size === 0) this.#subscribers.delete(workspaceId);
      if (keyId !== undefined) {
        const left = (this.#perKey.get(keyId) ?? 1) - 1;
        if (left > 0) this.#perKey.set(keyId, left);
        else this.#perKey.delete(keyId);
      }
    };
    const stop = (how: 'ended' | 'overflowed') => {
      if (state !== 'open') return;
      state = how;
      queue.length = 0;
      release();
      wake?.();
      closed();
    };
    const subscriber: Subscriber = {
      workspaceId,
      keyId,
      push: (events) => {
        if (state !== 'open') return;
        queue.push(...events);
        if (queue.length > this.limits.bufferEvents) stop('overflowed');
        else wake?.();
      },
      async next() {
        while (queue.length === 0 && state === 'open') await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        if (state === 'overflowed') return { overflowed: true };
        return queue.length > 0 ? { event: queue.shift()! } : undefined;
      },
      end: () => stop('ended'),
      closed: closing,
    };
    return subscriber;
  }

  /** Ids handed on lately, and when: a source that reads some rows again (a look-back, a catch-up) sends none of them twice. */
  readonly #handedOn = new Map<string, number>();

  /** Hands each row not handed on before to its workspace's subscribers. */
  #handOn(rows: readonly StoredEvent[]): void {
    const now = Date.now();
    for (const [id, at] of this.#handedOn) if (now - at > HANDED_ON_MS) this.#handedOn.delete(id);
    const byWorkspace = new Map<string, StoredEvent[]>();
    for (const e of rows) {
      if (this.#handedOn.has(e.id)) continue;
      this.#handedOn.set(e.id, now);
      (byWorkspace.get(e.workspaceId) ?? byWorkspace.set(e.workspaceId, []).get(e.workspaceId)!).push(e);
    }
    for (const [workspaceId, list] of byWorkspace) for (const s of this.#subscribers.get(workspaceId) ?? []) s.push(list);
  }

  /** PostgreSQL: one connection LISTENs; each notification names a workspace and ids, read at once (only for workspaces someone follows here). */
  #listen(url: string): { stop(): Promise<void>; ready: Promise<void> } {
    let client: pg.Client | undefined;
    let stopped = false;
    // The newest id read: after a reconnect the log is read from there, so that what committed
    // while no connection listened is not lost.
    let newest: string | undefined;
    const handOn = (rows: StoredEvent[]) => {
      for (const r of rows) if (newest === undefined || r.id > newest) newest = r.id;
      this.#handOn(rows);
    };
    let connected = 0;
    let retry: NodeJS.Timeout | undefined;
    let inOrder = Promise.resolve();
    // Reconnects after 1 s, then waits twice as long each time up to 30 s; an outage is logged once.
    let delay = 0;
    const reconnect = (error: unknown) => {
      if (stopped) return;
      if (delay === 0) logError('none', error, 'live events (LISTEN)');
      delay = Math.min(30_000, Math.max(1_000, delay * 2));
      clearTimeout(retry);
      retry = setTimeout(() => void connect(), delay);
    };
    const connect = async () => {
      const next = new pg.Client({ connectionString: url });
      next.on('error', (error) => {
        client = undefined;
        reconnect(error);
      });
      next.on('notification', (message) => {
        const [workspaceId, ...ids] = (message.payload ?? '').split(' ');
        if (!workspaceId || ids.length === 0 || !this.#subscribers.has(workspaceId)) return;
        // Read at once, handed on in the order the commits were notified (a later read may finish first).
        const reading = this.#read({ id: { in: ids } });
        inOrder = inOrder.then(() => reading).then(handOn, (error) => logError('none', error, 'live events (read)'));
      });
      try {
        await next.connect();
        await next.query(`LISTEN ${EVENTS_CHANNEL}`);
        if (stopped) return void (await next.end().catch(() => {}));
        client = next;
        delay = 0;
        connected += 1;
        // Back after an outage: what committed meanwhile, from the log.
        if (connected > 1 && newest !== undefined && this.#subscribers.size > 0) handOn(await this.#read({ id: { gt: newest } }));
      } catch (error) {
        await next.end().catch(() => {});
        reconnect(error);
      }
    };
    const ready = connect();
    return {
      ready,
      stop: async () => {
        stopped = true;
        clearTimeout(retry);
        await ready;
        await client?.end().catch(() => {});
      },
    };
  }

  /** The embedded database: while anyone listens, the log's newest rows every POLL_MS, from where the last read ended (less LOOK_BACK_MS). */
  #poll(): { stop(): Promise<void>; ready: Promise<void> } {
    let after = firstIdAt(new Date(Date.now() - LOOK_BACK_MS));
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    let stopped = false;
    // A tick's first read looks back; a full batch is followed at once from its last row.
    let lookBack = true;
    const tick = async () => {
      if (this.#subscribers.size > 0) {
        const from = firstIdAt(new Date(Date.now() - LOOK_BACK_MS));
        const rows = await this.#read({ id: { gt: lookBack && from < after ? from : after } });
        if (rows.length > 0) after = rows.at(-1)!.id;
        this.#handOn(rows);
        // A full batch: more are waiting, read on at once.
        lookBack = rows.length < BATCH;
        if (!lookBack && !stopped) return void (timer = setTimeout(run, 0));
      } else {
        after = firstIdAt(new Date(Date.now() - LOOK_BACK_MS));
      }
      if (!stopped) timer = setTimeout(run, POLL_MS);
    };
    const run = () => {
      running = tick().catch((error) => {
        logError('none', error, 'live events (poll)');
        if (!stopped) timer = setTimeout(run, POLL_MS);
      });
    };
    run();
    return {
      // A subscriber is read from its first tick on, which looks back far enough.
      ready: Promise.resolve(),
      stop: async () => {
        stopped = true;
        clearTimeout(timer);
        await running;
      },
    };
  }

  #read(where: object): Promise<StoredEvent[]> {
    return this.db.event.findMany({ where, orderBy: { id: 'asc' }, take: BATCH }) as Promise<StoredEvent[]>;
  }
}
