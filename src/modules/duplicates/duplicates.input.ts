import { z } from 'zod';

export const DUPLICATES_MAX_PER_PAGE = 100;
export const DUPLICATES_DEFAULT_PER_PAGE = 25;

export const DuplicatesArgs = z.object({
  perPage: z.number().int().min(1).max(DUPLICATES_MAX_PER_PAGE).default(DUPLICATES_DEFAULT_PER_PAGE),
  cursor: z.string().max(2000).optional(),
});
