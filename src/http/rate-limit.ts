/** What counting one request says: whether it may proceed, and what the headers say. */
export interface RateLimitHit {
  allowed: boolean;
  remaining: number;
  retryAfterSeconds: number;
}

/**
 * Where the fixed one-minute window per API key is counted: this process's memory,
 * the cluster primary's memory (rate-limit-primary.ts) or Redis (rate-limit-redis.ts).
 * `limit` 0 disables limiting. `hit` rejects when the count cannot be had; the gate
 * then lets the request through (see docs/decisions.md).
 */
export interface RateLimitStore {
  readonly limit: number;
  /** `limit`: another limit than the store's own, for keys of another kind (client addresses of the public routes). */
  hit(key: string, limit?: number): Promise<RateLimitHit>;
  /** Stores with a server of their own (Redis) answer this when it answers: `/readyz` asks. */
  ping?(): Promise<void>;
  close?(): Promise<void>;
}

export const WINDOW_MS = 60_000;

/** The one rule every store applies to its count: requests so far in the window, and the time the window has left. */
export function decide(limit: number, count: number, msLeft: number): RateLimitHit {
  return {
    allowed: count <= limit,
    remaining: Math.max(0, limit - count),
    retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
  };
}

/** The windows kept in this process's memory: exact for one process (and for a cluster, kept by its primary). */
export class RateLimiter implements RateLimitStore {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request. */
  async hit(key: string, limit = this.limit): Promise<RateLimitHit> {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= WINDOW_MS) {
      if (this.windows.size > 10_000) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
    return decide(limit, w.count, w.start + WINDOW_MS - now);
  }

  private sweep(now: number) {
    for (const [key, w] of this.windows) if (now - w.start >= WINDOW_MS) this.windows.delete(key);
  }
}
