import { z } from 'zod';
import { SEARCH_TYPE_NAMES } from '../../search/documents.js';
import { Messages } from '../../validation/messages.js';
import { unstorable } from '../../validation/json-values.js';
import { nameList } from '../../validation/rules.js';

export const SEARCH_MAX_PER_PAGE = 50;
export const SEARCH_DEFAULT_PER_PAGE = 15;

/** `types`: search's type names (`contacts,deals`). */
const typeNames = nameList(SEARCH_TYPE_NAMES);

export const SearchArgs = z.object({
  q: z
    .string()
    .min(1)
    .max(200)
    .superRefine((q, ctx) => {
      const problem = unstorable(q);
      if (problem) ctx.addIssue({ code: 'custom', message: problem(':attribute') });
    })
    .refine((q) => q.trim().length > 0, { message: Messages.required(':attribute') }),
  types: typeNames.optional(),
  perPage: z.number().int().min(1).max(SEARCH_MAX_PER_PAGE).default(SEARCH_DEFAULT_PER_PAGE),
  cursor: z.string().max(2000).optional(),
});
