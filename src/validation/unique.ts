import type { z } from 'zod';
import { isUniqueViolation } from '../db/errors.js';
import type { Context } from '../graphql/context.js';
import { invalidField } from '../graphql/errors.js';
import type { FieldErrors } from './messages.js';
import { Messages } from './messages.js';

/** Who holds each of a batch's values (src/graphql/batch.ts): the values as the rule parses them, and the holders' ids by value. */
export interface Holders<V> {
  field: string;
  /** Each item's value, parsed; undefined where absent, null or refused by the rule itself. */
  values: (V | undefined)[];
  /** The records already holding one of the values. */
  holderOf: Map<V, string>;
}

/**
 * A value unique in its workspace, sent as `field`. The write's unique constraint decides
 * (`taken` turns its violation into 422 on the field), so an accepted request costs no
 * extra read and no race is possible; `probe` looks the value up only for a request
 * refused for other reasons anyway, so that one answer lists every problem. `holdersOf`
 * looks many values up at once, for batches (`holders`).
 */
export function uniqueValue<V>(
  field: string,
  rule: z.ZodType<V>,
  holderOf: (ctx: Context, value: V) => PromiseLike<{ id: string } | null>,
  holdersOf?: (ctx: Context, values: V[]) => PromiseLike<{ id: string; value: V }[]>,
) {
  const parse = (raw: unknown): V | undefined => {
    if (raw === undefined || raw === null) return undefined;
    const parsed = rule.safeParse(raw);
    return parsed.success && parsed.data !== null ? parsed.data : undefined;
  };
  return {
    taken: (error: unknown) => (isUniqueViolation(error) ? invalidField(field, Messages.taken(field)) : error),
    /** `field`'s error when another record holds the value `raw` parses to (nothing when `raw` is absent or refused itself). */
    async probe(ctx: Context, raw: unknown, exceptId?: string): Promise<FieldErrors> {
      const value = parse(raw);
      if (value === undefined) return {};
      const holder = await holderOf(ctx, value);
      return holder && holder.id !== exceptId ? { [field]: [Messages.taken(field)] } : {};
    },
    /** The values of a batch's items (`raws`, as sent) and who holds them now, in one query. */
    async holders(ctx: Context, raws: readonly unknown[]): Promise<Holders<V>> {
      if (!holdersOf) throw new Error(`uniqueValue(${field}): no holdersOf for batches`);
      const values = raws.map(parse);
      const wanted = [...new Set(values.filter((v): v is V => v !== undefined))];
      const found = wanted.length ? await holdersOf(ctx, wanted) : [];
      return { field, values, holderOf: new Map(found.map((h) => [h.value, h.id])) };
    },
  };
}
