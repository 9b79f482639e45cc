import { z } from 'zod';
import { pageRules } from '../../graphql/pagination.js';

export const EventListArgs = z.object({
  ...pageRules,
  // Like Stripe's: a type that matches no event finds none (it is not refused).
  type: z.string().max(100).optional(),
  recordId: z.string().max(64).optional(),
  createdSince: z.date().optional(),
});

export const HistoryArgs = z.object(pageRules);
