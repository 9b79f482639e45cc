/**
 * A fixed one-minute window per API key, kept in this process's memory (a single
 * instance's limit; see docs/decisions.md). `limit` 0 disables it.
 */
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request; says whether it may proceed and what the headers say. */
  hit(key: string): { allowed: boolean; remaining: number; retryAfterSeconds: number } {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= 60_000) {
      if (this.windows.size > 10_000) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
    const allowed = w.count <= this.limit;
    return {
      allowed,
      remaining: Math.max(0, this.limit - w.count),
      retryAfterSeconds: Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000)),
    };
  }

  private sweep(now: number) {
    for (const [key, w] of this.windows) if (now - w.start >= 60_000) this.windows.delete(key);
  }
}
