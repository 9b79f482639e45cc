import { createAuthenticator } from '../auth/api-keys.js';
import type { Database } from '../db/client.js';
import { scopeToWorkspace } from '../db/tenancy.js';
import type { Context } from '../graphql/context.js';
import { RateLimiter } from './rate-limit.js';
import { noteRequest } from './request-scope.js';

export type Admission =
  | { ok: true; context: Context; headers: Record<string, string> }
  | { ok: false; status: 401 | 429; message: string; headers: Record<string, string> };

/**
 * The one door for REST and GraphQL alike: the `X-Api-Key` rule, the rate limit per
 * key, and a context whose database client sees only the key's workspace.
 */
export function createGate(database: Database, rateLimitPerMinute: number) {
  const limiter = new RateLimiter(rateLimitPerMinute);
  const authenticate = createAuthenticator(database.prisma);
  // A scoped client is a cheap view over the one connection pool; keep one per workspace
  // rather than extending the client on every request.
  const scoped = new Map<string, Context['db']>();
  const scopedFor = (workspaceId: string) => {
    let db = scoped.get(workspaceId);
    if (!db) {
      if (scoped.size >= 1000) scoped.clear();
      db = scopeToWorkspace(database.prisma, workspaceId);
      scoped.set(workspaceId, db);
    }
    return db;
  };
  return async function admit(request: Request, requestId: string): Promise<Admission> {
    const caller = await authenticate(request.headers.get('x-api-key'));
    if (!caller) return { ok: false, status: 401, message: 'Unauthenticated.', headers: {} };
    const headers: Record<string, string> = {};
    if (limiter.limit > 0) {
      const hit = limiter.hit(caller.keyId);
      headers['X-RateLimit-Limit'] = String(limiter.limit);
      headers['X-RateLimit-Remaining'] = String(hit.remaining);
      if (!hit.allowed) {
        headers['Retry-After'] = String(hit.retryAfterSeconds);
        return { ok: false, status: 429, message: 'Too Many Attempts.', headers };
      }
    }
    noteRequest({ workspaceId: caller.workspace.id });
    return {
      ok: true,
      headers,
      context: { db: scopedFor(caller.workspace.id), workspace: caller.workspace, requestId },
    };
  };
}

export type Gate = ReturnType<typeof createGate>;
