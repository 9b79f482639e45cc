import { loadConfig } from '../config.js';
import type { Db } from '../db/client.js';
import type { Event as EventModel } from '../generated/sqlite/client.js';
import { type ScopedDb, scopeToWorkspace } from '../db/tenancy.js';
import type { RequestFacts } from '../http/request-facts.js';
import type { FieldErrors } from '../validation/messages.js';
import { createPayments } from '../payments/payments.js';
import type { Payments } from '../payments/providers.js';

/** Service settings resolvers need (from the environment: WEBHOOK_ALLOW_PRIVATE_NETWORKS, CHECKOUT_EXPIRY_MINUTES, STREAM_BUFFER_EVENTS). */
export interface Settings {
  allowPrivateNetworks: boolean;
  checkoutExpiryMinutes: number;
  /** STREAM_BUFFER_EVENTS: events a stream's reader may fall behind before it is dropped. */
  streamBufferEvents: number;
  /** The payment providers' adapters, the sealed secrets' keys, and how provider calls go (API.md section 11). */
  payments: Payments;
  /** TRASH_RETENTION_DAYS: how long a deleted record stays in the trash before it is purged. */
  trashRetentionDays: number;
}

const defaults = loadConfig({});
/** The settings when the environment sets none. */
export const DEFAULT_SETTINGS: Settings = {
  allowPrivateNetworks: defaults.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
  checkoutExpiryMinutes: defaults.CHECKOUT_EXPIRY_MINUTES,
  streamBufferEvents: defaults.STREAM_BUFFER_EVENTS,
  payments: createPayments(defaults),
  trashRetentionDays: defaults.TRASH_RETENTION_DAYS,
};

/** Who caused an event (API.md section 6); `system`: the service itself (a failing webhook endpoint disabled). */
export type Actor = { type: 'api_key'; id: string; name: string } | { type: 'cli' } | { type: 'checkout' } | { type: 'provider'; id: string } | { type: 'system' };

/** A row of the event log, as the live tail hands it on. */
export type LoggedEvent = Omit<EventModel, 'resource'> & { resource: string };

/** One subscriber's queue of committed events: the next one, `overflowed` once it fell too far behind, undefined once ended. */
export interface EventStreamSubscription {
  next(): Promise<{ event: LoggedEvent } | { overflowed: true } | undefined>;
  end(): void;
  /** Settles once the subscription ended: by `end`, by the service's shutdown, or by falling too far behind. */
  readonly closed: Promise<void>;
}

/** The live tail of the event log (src/events/live.ts): undefined from `subscribe` when the key holds all the streams it may. */
export interface EventFeed {
  subscribe(workspaceId: string, keyId: string | undefined): EventStreamSubscription | undefined;
  /** Settles once the feed follows the commits (a new subscriber waits for it before it answers). */
  ready(): Promise<void>;
}

/**
 * What a write says once it has committed (src/events/commit-signal.ts's CommitSignal, one
 * per service): that it queued webhook deliveries (the service's delivery worker wakes),
 * and which events it recorded (published to every process's live tail when REDIS_URL is set).
 */
export interface CommitNotices {
  deliveriesQueued(): void;
  eventsRecorded(workspaceId: string, ids: readonly string[]): void;
}

/** What every resolver gets: the caller's workspace and a client that sees only it. */
export interface Context {
  db: ScopedDb;
  /** The workspace's client outside any transaction, for what runs once a mutation has committed (a provider call): `db` is the transaction's then. */
  dbAfterCommit: ScopedDb;
  /**
   * The workspace's client for reads that can run long (exports, searches, reports, a
   * stream's replay: `longReadsOf`), on connections of their own (src/db/client.ts,
   * `Database.longReads`); absent where nothing else waits (the command line, background work).
   */
  longReads?: () => ScopedDb;
  /** Between two pages of a long read: resolves once the short requests in flight have been answered, `quiet` when none came for a while (src/http/pacing.ts; absent: at once). */
  nextLongReadPage?: () => Promise<{ quiet: boolean }>;
  workspace: { id: string; defaultCurrency: string };
  requestId: string;
  /** The key's scopes (src/auth/scopes.ts); absent: no limit (the public routes' own documents, the service's own work). */
  scopes?: readonly string[];
  /** Who is calling: the events a write records name it. */
  actor: Actor;
  /** The service's origin as the caller reached it (`http://host:port`): the checkout's next step links to it. */
  origin?: string;
  /** Service settings resolvers need. */
  settings: Settings;
  /**
   * What mutations that call a provider before they write worked out outside any transaction
   * (their `prepare`, src/events/mutations.ts), by field name; `preparing`: run only that.
   */
  prepared?: Map<string, unknown>;
  preparing?: boolean;
  /**
   * Inside a mutation: work started once its transaction committed (a provider call) that
   * the mutation's answer waits for; work deferred to a caller's transaction (an
   * Idempotency-Key's) starts after that one commits, and nothing waits for it.
   */
  awaitedAfterCommit?: Promise<unknown>[];
  /** Inside a mutation: runs `fn` once its transaction has committed (never when it rolls back). */
  afterCommit?: (fn: () => void) => void;
  /**
   * Wrong JSON types the REST adapter found before execution (those fields were left
   * out of the variables); input validation reports them with every other problem.
   */
  inputTypeErrors?: FieldErrors;
  /** A CSV export's page size: larger than a client's `per_page` may be, for fewer round trips (src/rest/adapter.ts). */
  exportPageSize?: number;
  /** Inside a mutation: a record as its REST GET answers it (an event's `data.object`), set by the write path. */
  represent?: (resource: 'webhook_endpoint', id: string, context: Context) => Promise<Record<string, unknown> | null>;
  /** Per-request memo of lookups many rows share (active property definitions). */
  cache?: Map<string, Promise<unknown>>;
  /** The live tail of the event log, for the `events` subscription and the REST stream (the service's; absent in the command line). */
  live?: EventFeed;
  /** The service's commit signal, given what a write did once it has committed (absent in the command line unless it publishes to Redis). */
  commits?: CommitNotices;
}

/** What a gate decides for a request: the context to run it in, or the answer that refuses it. */
export type Admission =
  | { ok: true; context: Context; headers: Record<string, string> }
  | { ok: false; status: 401 | 404 | 429; message: string; headers: Record<string, string> };

/** What a face asks before running a request: who calls, with the route's path parameters (the public routes' credential is in the path). */
export type Admit = (request: Request, facts: RequestFacts, params: Record<string, string>) => Promise<Admission>;

/**
 * The one way a Context is made: who acts, in which workspace, through a client that
 * sees only that workspace (`db`, when the caller keeps one per workspace; else made
 * here). A request's gate, the command line, the demo and background work all call it.
 */
export function createContext(
  prisma: Db,
  workspace: Context['workspace'],
  actor: Actor,
  options: Partial<Pick<Context, 'db' | 'longReads' | 'nextLongReadPage' | 'requestId' | 'scopes' | 'origin' | 'settings' | 'live' | 'commits'>> = {},
): Context {
  const { db = scopeToWorkspace(prisma, workspace.id), requestId = '', settings = DEFAULT_SETTINGS, ...rest } = options;
  return { db, dbAfterCommit: db, workspace, actor, requestId, settings, ...rest };
}

/** The client a long read runs on: the context's long-reads client, or its own where it has none (or is inside a transaction). */
export const longReadsOf = (ctx: Context): ScopedDb => ctx.longReads?.() ?? ctx.db;

/** The context of the service's own writes (background work: webhook auto-disable, checkout expiry), recorded with actor `system`. */
export const systemContext = (prisma: Db, workspace: Context['workspace'], settings: Settings = DEFAULT_SETTINGS, commits?: CommitNotices): Context =>
  createContext(prisma, workspace, { type: 'system' }, { settings, commits });
