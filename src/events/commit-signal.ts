import type { CommitNotices } from '../graphql/context.js';

/**
 * A serving process's word about its commits, given once each has committed (never for
 * one that rolled back): one per service (made by the composition root, src/service.ts),
 * carried by the contexts its writes run in. A commit that queued webhook deliveries
 * wakes the delivery worker, which so attempts them at once instead of at its next poll;
 * a commit's events are handed to `publish` (Redis pub/sub, when REDIS_URL is set), which
 * must neither throw nor wait: the write has committed, and answers whatever happens to it.
 */
export class CommitSignal implements CommitNotices {
  readonly #listeners = new Set<() => void>();

  constructor(private readonly publish?: (workspaceId: string, ids: readonly string[]) => void) {}

  /** Calls `listener` on each `deliveriesQueued`, until the returned function is called. */
  onDeliveriesQueued(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  readonly deliveriesQueued = (): void => {
    for (const listener of this.#listeners) listener();
  };

  readonly eventsRecorded = (workspaceId: string, ids: readonly string[]): void => {
    if (ids.length > 0) this.publish?.(workspaceId, ids);
  };
}
