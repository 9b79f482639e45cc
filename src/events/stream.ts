import { firstIdAt } from '../db/ids.js';
import { type Context, type EventStreamSubscription, type LoggedEvent, longReadsOf } from '../graphql/context.js';
import { invalid, rateLimited } from '../graphql/errors.js';
import { type EventResource, typeMatches, visibleResources } from './resources.js';

/** Rows per read of the log while a stream replays it. */
const REPLAY_PAGE = 500;
/** Replayed events this recent are remembered, so that the live queue (which holds them too) sends them once. */
const SEAM_MS = 10_000;

export interface StreamRequest {
  /** Patterns as `GET /events` takes them (`deal.*`, `contact.created`); none: every type. */
  types?: readonly string[];
  /** An event id: every later event of the log first, then the live ones. */
  since?: string;
}

/**
 * The events a key follows (the `events` subscription, `GET /events/stream`): the log
 * after `since`, then the live tail, with no gap and no duplicate at the seam. The live
 * queue is opened first, so what commits while the log is read is queued, and what the
 * log already gave is skipped from the queue. Throws before anything is sent: 422 for a
 * `since` that is not an event of the workspace's log (unknown, or purged), 429 when the
 * key holds all the streams it may.
 */
export async function openEventStream(ctx: Context, request: StreamRequest): Promise<{ events: AsyncIterableIterator<LoggedEvent>; ended: Promise<void> }> {
  if (request.since !== undefined && !(await ctx.db.event.findUnique({ where: { id: request.since }, select: { id: true } }))) {
    throw invalid({ since: ['The selected since is invalid: it is not an event of the log (unknown, or older than the retention).'] });
  }
  const keyId = ctx.actor.type === 'api_key' ? ctx.actor.id : undefined;
  const subscription = ctx.live?.subscribe(ctx.workspace.id, keyId);
  if (!subscription) throw rateLimited(1);
  await ctx.live!.ready();
  const inner = follow(ctx, request, subscription);
  // A consumer that stops (the client went away) ends the subscription at once: the generator
  // may be waiting for the next event, and its own return() would wait with it.
  const events: AsyncIterableIterator<LoggedEvent> = {
    next: () => inner.next(),
    return: (value?: unknown) => {
      subscription.end();
      return inner.return(value as undefined);
    },
    throw: (error?: unknown) => {
      subscription.end();
      return inner.throw(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return { events, ended: subscription.closed };
}

async function* follow(ctx: Context, request: StreamRequest, subscription: EventStreamSubscription): AsyncGenerator<LoggedEvent> {
  const visible = visibleResources(ctx.scopes);
  const wanted = (e: { type: string; resource: string }) =>
    (!request.types?.length || request.types.some((p) => typeMatches(p, e.type))) && (!visible || visible.includes(e.resource as EventResource));
  const seam = new Set<string>();
  try {
    if (request.since !== undefined) {
      const recent = firstIdAt(new Date(Date.now() - SEAM_MS));
      let after = request.since;
      for (;;) {
        const page = (await longReadsOf(ctx).event.findMany({ where: { id: { gt: after } }, orderBy: { id: 'asc' }, take: REPLAY_PAGE })) as LoggedEvent[];
        for (const event of page) {
          if (event.id >= recent) seam.add(event.id);
          if (wanted(event)) yield event;
        }
        if (page.length < REPLAY_PAGE) break;
        after = page.at(-1)!.id;
        await ctx.nextLongReadPage?.();
      }
    }
    for (;;) {
      const next = await subscription.next();
      if (!next || 'overflowed' in next) return;
      // Not the log's again: what the replay gave, and what came before `since` (the live tail can
      // hand on a moment's earlier commits).
      if (seam.delete(next.event.id) || (request.since !== undefined && next.event.id <= request.since) || !wanted(next.event)) continue;
      yield next.event;
    }
  } finally {
    subscription.end();
  }
}
