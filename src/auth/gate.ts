import type { Database, Db } from '../db/client.js';
import { scopeToWorkspace } from '../db/tenancy.js';
import { type Admission, type Context, DEFAULT_SETTINGS, type CommitNotices, type EventFeed, type Settings, createContext } from '../graphql/context.js';
import { type RateLimitHit, type RateLimitStore, RateLimiter } from '../http/rate-limit.js';
import type { LongReadPacing } from '../http/pacing.js';
import type { RequestFacts } from '../http/request-facts.js';
import { logError } from '../log.js';
import { createAuthenticator } from './api-keys.js';

/**
 * Counts a request, or lets it through uncounted (`undefined`) when the store fails:
 * a Redis outage must not take the API down with it. One error line per outage, not
 * one per request.
 */
function failingOpen(store: RateLimitStore, limit: number, what: string) {
  let failing = false;
  return async (key: string, requestId: string): Promise<RateLimitHit | undefined> => {
    try {
      const hit = await store.hit(key, limit);
      failing = false;
      return hit;
    } catch (error) {
      if (!failing) logError(requestId, error, `${what} store (requests pass uncounted until it answers)`);
      failing = true;
      return undefined;
    }
  };
}

/**
 * One request counted against `limit` per minute for `key` (0: not counted): the
 * rate-limit headers of the answer, and the 429 to answer instead when it is over.
 * The key gate counts per key, the public gate per client address.
 */
export function rateLimitCounter(store: RateLimitStore, limit: number, what: string) {
  const count = failingOpen(store, limit, what);
  return async (key: string, requestId: string): Promise<{ headers: Record<string, string>; refused?: Admission }> => {
    const headers: Record<string, string> = {};
    const hit = limit > 0 ? await count(key, requestId) : undefined;
    if (hit) {
      headers['X-RateLimit-Limit'] = String(limit);
      headers['X-RateLimit-Remaining'] = String(hit.remaining);
      if (!hit.allowed) {
        headers['Retry-After'] = String(hit.retryAfterSeconds);
        return { headers, refused: { ok: false, status: 429, message: 'Too Many Attempts.', headers } };
      }
    }
    return { headers };
  };
}

/**
 * The one door for REST and GraphQL alike: the `X-Api-Key` rule, the rate limit per
 * key, and a context whose database client sees only the key's workspace. The rate
 * limit is counted in `store` when one is given (Redis, or a cluster's primary), else
 * in this process's memory.
 */
/** Where the key goes, in a 401's standard header (RFC 9110): the body stays Laravel's `{"message":"Unauthenticated."}`. */
export const KEY_CHALLENGE = 'ApiKey header="X-Api-Key"';

export function createGate(
  database: Database,
  rateLimitPerMinute: number,
  {
    store,
    keyRecheckMs,
    settings = DEFAULT_SETTINGS,
    live,
    commits,
    pacing,
  }: { store?: RateLimitStore; keyRecheckMs?: number; settings?: Settings; live?: EventFeed; commits?: CommitNotices; pacing?: LongReadPacing } = {},
) {
  const limiter = store ?? new RateLimiter(rateLimitPerMinute);
  const count = rateLimitCounter(limiter, limiter.limit, 'rate limit');
  const authenticate = createAuthenticator(database.prisma, keyRecheckMs);
  // A scoped client is a cheap view over the one connection pool; keep one per workspace
  // rather than extending the client on every request.
  const scopedClients = (client: () => Db) => {
    const scoped = new Map<string, Context['db']>();
    return (workspaceId: string) => {
      let db = scoped.get(workspaceId);
      if (!db) {
        if (scoped.size >= 1000) scoped.clear();
        db = scopeToWorkspace(client(), workspaceId);
        scoped.set(workspaceId, db);
      }
      return db;
    };
  };
  const scopedFor = scopedClients(() => database.prisma);
  const longReadsFor = scopedClients(() => database.longReads);
  return async function admit(request: Request, facts: RequestFacts): Promise<Admission> {
    const { requestId } = facts;
    const caller = await authenticate(request.headers.get('x-api-key'));
    if (!caller) return { ok: false, status: 401, message: 'Unauthenticated.', headers: { 'WWW-Authenticate': KEY_CHALLENGE } };
    const { headers, refused } = await count(caller.keyId, requestId);
    if (refused) return refused;
    facts.workspaceId = caller.workspace.id;
    return {
      ok: true,
      headers,
      context: createContext(database.prisma, caller.workspace, { type: 'api_key', id: caller.keyId, name: caller.keyName }, {
        db: scopedFor(caller.workspace.id),
        longReads: () => longReadsFor(caller.workspace.id),
        nextLongReadPage: pacing && (() => pacing.next()),
        requestId,
        scopes: caller.scopes,
        origin: new URL(request.url).origin,
        settings,
        live,
        commits,
      }),
    };
  };
}
