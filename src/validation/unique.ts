import type { z } from 'zod';
import { isUniqueViolation } from '../db/errors.js';
import type { Context } from '../graphql/context.js';
import { type FieldErrors, invalidField } from '../graphql/errors.js';
import { Messages } from './messages.js';

/**
 * A value unique in its workspace, sent as `field`. The write's unique constraint decides
 * (`taken` turns its violation into 422 on the field), so an accepted request costs no
 * extra read and no race is possible; `probe` looks the value up only for a request
 * refused for other reasons anyway, so that one answer lists every problem.
 */
export function uniqueValue<V>(field: string, rule: z.ZodType<V>, holderOf: (ctx: Context, value: V) => PromiseLike<{ id: string } | null>) {
  return {
    taken: (error: unknown) => (isUniqueViolation(error) ? invalidField(field, Messages.taken(field)) : error),
    /** `field`'s error when another record holds the value `raw` parses to (nothing when `raw` is absent or refused itself). */
    async probe(ctx: Context, raw: unknown, exceptId?: string): Promise<FieldErrors> {
      if (raw === undefined || raw === null) return {};
      const parsed = rule.safeParse(raw);
      if (!parsed.success) return {};
      const holder = await holderOf(ctx, parsed.data);
      return holder && holder.id !== exceptId ? { [field]: [Messages.taken(field)] } : {};
    },
  };
}
