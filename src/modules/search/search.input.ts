import { z } from 'zod';
import { SEARCH_TYPE_NAMES } from '../../search/documents.js';
import { Messages } from '../../validation/messages.js';
import { unstorable } from '../../validation/json-values.js';

export const SEARCH_MAX_PER_PAGE = 50;
export const SEARCH_DEFAULT_PER_PAGE = 15;

/** `types` as REST sends it (comma-separated, possibly in one item) or GraphQL does (a list): the names, each once. */
const typeNames = z
  .array(z.string())
  .transform((items) => [...new Set(items.flatMap((item) => item.split(',')).map((t) => t.trim()).filter(Boolean))])
  .refine((names) => names.length > 0, { message: 'The :attribute field must have at least 1 items.' })
  .refine((names) => names.every((n) => (SEARCH_TYPE_NAMES as string[]).includes(n)), { message: 'The selected :attribute is invalid.' });

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
