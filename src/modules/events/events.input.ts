import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';

/** The log and a record's history, newest first (API.md section 6); each its own list for cursors. */
export const EVENT_LIST = listSpec('events', 'Event', [], '-id');
export const HISTORY_LIST = listSpec('history', 'Event', [], '-id');

export const EventListArgs = z.object({
  ...listRules,
  // Like Stripe's: a type that matches no event finds none (it is not refused).
  type: z.string().max(100).optional(),
  recordId: z.string().max(64).optional(),
});

export const HistoryArgs = z.object(listRules);

/** The stream's and the subscription's arguments (API.md section 10). */
export const StreamArgs = z.object({
  types: z.array(z.string().min(1).max(100)).max(50).optional(),
  since: z.string().min(1).max(64).optional(),
});
