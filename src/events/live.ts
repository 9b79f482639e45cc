import type pg from 'pg';
import type { Db } from '../db/client.js';
import { firstIdAt } from '../db/ids.js';
import type { DatabaseTarget } from '../db/database-url.js';
import type { EventFeed, EventStreamSubscription } from '../graphql/context.js';
import { logError } from '../log.js';
import type { StoredEvent } from './deliveries.js';
import type { EventChannel } from './event-channel.js';

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
/** After a failed read of the log, how long before the notified workspaces are read again. */
const RETRY_MS = 1_000;

/** Where the live tail learns of commits: the embedded database's poll, PostgreSQL's LISTEN, or Redis pub/sub. */
interface Source {
  /** Settles once this process follows the commits of every workspace subscribed to so far (or its first attempt failed). */
  ready(): Promise<void>;
  /** A workspace's first subscriber in this process, and its last one gone (the notified sources read per workspace). */
  follow?(workspaceId: string): void;
  unfollow?(workspaceId: string): void;
  stop(): Promise<void>;
}

/** REDIS_URL is set: the live tail follows EVENTS_REDIS_CHANNEL, and reads the log every `safetyReadMs` for publishes lost. */
export interface LiveRedis {
  channel: EventChannel;
  safetyReadMs: number;
}

interface Subscriber extends EventStreamSubscription {
  workspaceId: string;
  keyId: string | undefined;
  push(events: readonly StoredEvent[]): void;
}

/**
 * The live tail of the event log (API.md section 10), one per process: whatever process
 * or instance commits events, every subscriber of that workspace in this process gets
 * them. With REDIS_URL, the committing process publishes the ids on a Redis channel that
 * every process follows; without it, on PostgreSQL the Event table's trigger notifies
 * each commit's ids (LISTEN/NOTIFY, delivered only if the transaction commits), and on
 * the embedded database one process's reader polls the log while anyone listens. Each
 * subscriber has a bounded queue: a reader that falls `bufferEvents` behind is dropped,
 * never buffered without bound.
 */
export class LiveEvents implements EventFeed {
  readonly #subscribers = new Map<string, Set<Subscriber>>();
  readonly #perKey = new Map<string, number>();
  #closed = false;
  #source: Source | undefined;

  constructor(
    private readonly db: Db,
    private readonly target: DatabaseTarget,
    private readonly limits: { streamsPerKey: number; bufferEvents: number },
    private readonly redis?: LiveRedis,
  ) {}

  /**
   * A subscriber to the workspace's committed events, queued from now on; `undefined` when
   * the key already holds `streamsPerKey` streams in this process (the caller answers 429).
   */
  subscribe(workspaceId: string, keyId: string | undefined): EventStreamSubscription | undefined {
    if (this.#closed) return undefined;
    if (keyId !== undefined && (this.#perKey.get(keyId) ?? 0) >= this.limits.streamsPerKey) return undefined;
    if (keyId !== undefined) this.#perKey.set(keyId, (this.#perKey.get(keyId) ?? 0) + 1);
    this.#source ??= this.redis ? this.#followRedis(this.redis) : this.target.provider === 'postgresql' ? this.#listen(this.target.url) : this.#poll();
    const subscriber = this.#newSubscriber(workspaceId, keyId);
    const set = this.#subscribers.get(workspaceId);
    if (set) set.add(subscriber);
    else {
      this.#subscribers.set(workspaceId, new Set([subscriber]));
      this.#source.follow?.(workspaceId);
    }
    return subscriber;
  }

  /**
   * Settles once this process follows the commits (its LISTEN or Redis subscription is in
   * place, or its first attempt failed; and where to read each subscribed workspace's log
   * from is known): a subscriber waits for it before it answers, so no commit after its
   * answer can pass unseen.
   */
  ready(): Promise<void> {
    return this.#source?.ready() ?? Promise.resolve();
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
      if (this.#subscribers.get(workspaceId)?.size === 0) {
        this.#subscribers.delete(workspaceId);
        this.#source?.unfollow?.(workspaceId);
      }
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

  /** The reads both notified sources share, handing on through this tail. */
  #notifiedReads(): NotifiedReads {
    return new NotifiedReads(
      (where) => this.#read(where),
      async (workspaceId) => (await this.db.event.findFirst({ where: { workspaceId }, orderBy: { id: 'desc' }, select: { id: true } }))?.id ?? null,
      (rows) => this.#handOn(rows),
    );
  }

  /** PostgreSQL: one connection LISTENs; each notification names a workspace and ids (read only for workspaces someone follows here). */
  #listen(url: string): Source {
    const reads = this.#notifiedReads();
    let client: pg.Client | undefined;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
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
      // Imported here: only a PostgreSQL process that someone follows live needs the driver's client.
      const { default: driver } = await import('pg');
      const next = new driver.Client({ connectionString: url });
      next.on('error', (error) => {
        client = undefined;
        reconnect(error);
      });
      next.on('notification', (message) => reads.notice(message.payload ?? ''));
      try {
        await next.connect();
        await next.query(`LISTEN ${EVENTS_CHANNEL}`);
        if (stopped) return void (await next.end().catch(() => {}));
        client = next;
        delay = 0;
        // Back after an outage: what committed meanwhile, from the log.
        reads.catchUp();
      } catch (error) {
        await next.end().catch(() => {});
        reconnect(error);
      }
    };
    const first = connect();
    return {
      ready: () => Promise.all([first, reads.settled()]).then(() => {}),
      follow: (workspaceId) => reads.follow(workspaceId),
      unfollow: (workspaceId) => reads.unfollow(workspaceId),
      stop: async () => {
        stopped = true;
        clearTimeout(retry);
        await first;
        await client?.end().catch(() => {});
        await reads.stop();
      },
    };
  }

  /**
   * REDIS_URL: one subscriber connection follows the channel every process publishes its
   * commits on; after each (re)subscribe, and every `safetyReadMs`, the log is read for what
   * a lost publish (a crash between a commit and its publish, an outage) left unsaid.
   */
  #followRedis({ channel, safetyReadMs }: LiveRedis): Source {
    const reads = this.#notifiedReads();
    const subscription = channel.subscribe({ message: (payload) => reads.notice(payload), subscribed: () => reads.catchUp() });
    const safety = setInterval(() => reads.catchUp(), safetyReadMs);
    return {
      ready: () => Promise.all([subscription.ready, reads.settled()]).then(() => {}),
      follow: (workspaceId) => reads.follow(workspaceId),
      unfollow: (workspaceId) => reads.unfollow(workspaceId),
      stop: async () => {
        clearInterval(safety);
        await subscription.stop();
        await reads.stop();
      },
    };
  }

  /** The embedded database: while anyone listens, the log's newest rows every POLL_MS, from where the last read ended (less LOOK_BACK_MS). */
  #poll(): Source {
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
      ready: () => Promise.resolve(),
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

/**
 * What both notified sources (PostgreSQL's NOTIFY, Redis pub/sub) do with a notice of a
 * commit, `<workspaceId> <ids...>`: when it names an id newer than the newest handed on
 * for a workspace followed here, that workspace's log is read after that newest id, and
 * what it holds is handed on. A workspace's event ids rise in the order its writes commit
 * (they take turns: takeTurn in deliveries.ts), so its log after the newest id handed on
 * holds exactly what is not handed on yet, in id order, however the notices arrive: late,
 * out of their commits' order (Redis: the publishes of several processes), or not at all
 * (a publish lost, a reconnect): the workspace's next notice, or the next catch-up (which
 * reads every followed workspace's log so), reads those too. A workspace is read from its
 * log's newest id when it is first followed. One read at a time: the notices that come
 * meanwhile are taken by the next, so a burst of commits costs a few reads, not one each.
 */
class NotifiedReads {
  /** Per followed workspace, the newest id handed on ('' when its log was empty when followed). */
  readonly #after = new Map<string, string>();
  /** Followed workspaces whose log's newest id is still to be read. */
  readonly #starting = new Set<string>();
  /** Followed workspaces whose log is to be read after `#after`. */
  readonly #due = new Set<string>();
  #waiting: (() => void)[] = [];
  #running: Promise<void> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(
    private readonly read: (where: object) => Promise<StoredEvent[]>,
    private readonly newest: (workspaceId: string) => Promise<string | null>,
    private readonly handOn: (rows: StoredEvent[]) => void,
  ) {}

  follow(workspaceId: string): void {
    this.#starting.add(workspaceId);
    this.#run();
  }

  unfollow(workspaceId: string): void {
    this.#after.delete(workspaceId);
    this.#starting.delete(workspaceId);
    this.#due.delete(workspaceId);
  }

  notice(payload: string): void {
    const [workspaceId = '', ...ids] = payload.split(' ');
    const after = this.#after.get(workspaceId);
    if (after === undefined ? !this.#starting.has(workspaceId) : !ids.some((id) => id > after)) return;
    this.#due.add(workspaceId);
    this.#run();
  }

  /** Every followed workspace's log, after what was handed on. */
  catchUp(): void {
    for (const workspaceId of [...this.#after.keys(), ...this.#starting]) this.#due.add(workspaceId);
    this.#run();
  }

  /** Settles once every workspace followed so far has its starting point. */
  settled(): Promise<void> {
    return this.#starting.size === 0 || this.#stopped ? Promise.resolve() : new Promise((resolve) => this.#waiting.push(resolve));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    await this.#running;
    for (const resolve of this.#waiting.splice(0)) resolve();
  }

  #run(): void {
    if (this.#running || this.#stopped || this.#retry) return;
    this.#running = this.#work().then(() => {
      this.#running = undefined;
      // Asked for while the last step was ending.
      if (this.#starting.size > 0 || this.#due.size > 0) this.#run();
    });
  }

  async #work(): Promise<void> {
    while (!this.#stopped) {
      const [starting] = this.#starting;
      if (starting !== undefined) {
        await this.#start(starting);
        continue;
      }
      const [due] = this.#due;
      if (due === undefined) return;
      this.#due.delete(due);
      if (!(await this.#readAfter(due))) return;
    }
  }

  async #start(workspaceId: string): Promise<void> {
    let newest: string;
    try {
      newest = (await this.newest(workspaceId)) ?? '';
    } catch (error) {
      logError('none', error, 'live events (read)');
      // As the poll does: a moment back (no id handed on is handed on again).
      newest = firstIdAt(new Date(Date.now() - LOOK_BACK_MS));
    }
    if (this.#starting.delete(workspaceId)) this.#after.set(workspaceId, newest);
    if (this.#starting.size === 0) for (const resolve of this.#waiting.splice(0)) resolve();
  }

  /** False when the read failed: the workspace is read again after RETRY_MS. */
  async #readAfter(workspaceId: string): Promise<boolean> {
    const after = this.#after.get(workspaceId);
    if (after === undefined) return true;
    let rows: StoredEvent[];
    try {
      rows = await this.read({ workspaceId, id: { gt: after } });
    } catch (error) {
      logError('none', error, 'live events (read)');
      this.#due.add(workspaceId);
      this.#retry = setTimeout(() => {
        this.#retry = undefined;
        this.#run();
      }, RETRY_MS);
      return false;
    }
    // Unfollowed meanwhile: nobody here wants them.
    if (!this.#after.has(workspaceId)) return true;
    if (rows.length > 0) this.#after.set(workspaceId, rows.at(-1)!.id);
    // A full batch: more are waiting.
    if (rows.length === BATCH) this.#due.add(workspaceId);
    this.handOn(rows);
    return true;
  }
}
