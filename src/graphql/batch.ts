import { GraphQLError } from 'graphql';
import { z } from 'zod';
import { type Holders } from '../validation/unique.js';
import { Messages, fieldErrorsFrom, renamed } from '../validation/messages.js';
import type { Context } from './context.js';
import { type FieldErrors, noFieldErrors } from '../validation/messages.js';
import { ErrorCode, codeOf, invalid } from './errors.js';

/**
 * Batch writes (API.md section 8): `createThings(inputs:)`, `updateThings(inputs:)`,
 * `upsertContacts(inputs:)`. What every batch shares lives here: the bound on `inputs`,
 * each item checked by its resource's own single-record validation with its errors
 * named `inputs.<i>.<field>`, the checks across items (a unique value named twice, an
 * update's unknown or repeated id), every problem of every item in one refusal, the
 * insert in as few statements as the rows allow, and the answer in input order. The
 * mutation's transaction (src/events/mutations.ts) makes it all or nothing.
 */

export const MAX_BATCH_ITEMS = 100;
const INPUTS = 'inputs';

const inputsRule = z.array(z.unknown()).min(1).max(MAX_BATCH_ITEMS);

/** The name of an item's field in a batch's errors: `inputs.3.email`. */
export const itemField = (index: number, field: string) => (field === 'input' ? `${INPUTS}.${index}` : `${INPUTS}.${index}.${field}`);

/** The field map a validation error carries, or undefined for any other error. */
export function fieldErrorsOf(error: unknown): FieldErrors | undefined {
  if (!(error instanceof GraphQLError) || codeOf(error) !== ErrorCode.BadUserInput) return undefined;
  return error.extensions.errors as FieldErrors | undefined;
}

/** The type errors the REST adapter found under one item, named from the item (`email` for `inputs.3.email`). */
function typeErrorsOf(ctx: Context, index: number): FieldErrors | undefined {
  const prefix = `${INPUTS}.${index}.`;
  const own = Object.entries(ctx.inputTypeErrors ?? {}).filter(([field]) => field.startsWith(prefix));
  return own.length ? Object.assign(noFieldErrors(), Object.fromEntries(own.map(([field, reasons]) => [field.slice(prefix.length), reasons]))) : undefined;
}

/**
 * One batch's checks: `Batch.of` refuses an `inputs` list out of bounds at once (before
 * any query); `validate` runs each item's own validation; the cross-item checks add to
 * the same map; `accepted` throws every problem together, or gives the parsed items.
 */
export class Batch<I> {
  readonly #errors = noFieldErrors();

  private constructor(readonly inputs: readonly I[]) {}

  /** The batch, when `inputs` holds 1 to 100 items; else 422 on `inputs` alone. */
  static of<I>(inputs: readonly I[]): Batch<I> {
    const bound = inputsRule.safeParse(inputs);
    if (!bound.success) throw invalid(fieldErrorsFrom(bound.error.issues, [INPUTS]));
    return new Batch(inputs);
  }

  /**
   * Each item through `validate` (the resource's single-record validation, run with a
   * context of its own whose type errors are the item's), all at once: the checks that
   * read the database should find what they need preloaded (src/validation/ids.ts
   * `preload`). A refused item's errors join the batch's as `inputs.<i>.<field>`,
   * reworded for that name; its value is undefined.
   */
  async validate<V>(ctx: Context, validate: (item: Context, input: I, index: number) => Promise<V>): Promise<(V | undefined)[]> {
    // One memo for all items (the active property definitions, read once).
    ctx.cache ??= new Map();
    return Promise.all(
      this.inputs.map(async (input, index) => {
        const typeErrors = typeErrorsOf(ctx, index);
        try {
          return await validate({ ...ctx, inputTypeErrors: typeErrors }, input, index);
        } catch (error) {
          const found = fieldErrorsOf(error);
          if (!found) throw error;
          for (const [field, reasons] of Object.entries(found)) {
            const name = itemField(index, field);
            // The adapter's type errors were worded for their full name already.
            this.#errors[name] = typeErrors && field in typeErrors ? ctx.inputTypeErrors![name]! : reasons.map((r) => renamed(r, field, name));
          }
          return undefined;
        }
      }),
    );
  }

  /** Refuses item `index`'s `field`, with a message worded for its full name; a field already refused keeps its reasons. */
  refuse(index: number, field: string, message: (name: string) => string): void {
    const name = itemField(index, field);
    this.#errors[name] ??= [message(name)];
  }

  /**
   * A unique value across the batch: an item naming a value an earlier item names is
   * refused ("has already been taken"), and so is one whose value another record holds,
   * unless `holderMayBe` says that record is the item's own (an update's id; an upsert,
   * whose value finds its record, passes `() => true`).
   */
  unique<V>(holders: Holders<V>, holderMayBe: (index: number, holder: string) => boolean = () => false): void {
    const first = new Map<V, number>();
    holders.values.forEach((value, index) => {
      if (value === undefined) return;
      const holder = holders.holderOf.get(value);
      if (first.has(value) || (holder !== undefined && !holderMayBe(index, holder))) this.refuse(index, holders.field, Messages.taken);
      else first.set(value, index);
    });
  }

  /**
   * An update's ids: each must be a record of the workspace (`found`, the ids a single
   * query found), and name it once in the batch (two items updating one record would
   * leave one of them unseen).
   */
  knownIds(ids: readonly unknown[], found: ReadonlySet<string>): void {
    const seen = new Set<string>();
    ids.forEach((id, index) => {
      if (typeof id !== 'string' || !found.has(id)) this.refuse(index, 'id', Messages.unknownId);
      else if (seen.has(id)) this.refuse(index, 'id', Messages.distinct);
      else seen.add(id);
    });
  }

  /** The parsed items when nothing was refused; else 422 with every problem of every item. */
  accepted<V>(values: readonly (V | undefined)[]): V[] {
    if (Object.keys(this.#errors).length > 0) throw invalid(this.#errors);
    return values as V[];
  }
}

/** A new row, its id set (`newRow`), and the records it links, if any (which `createMany` cannot write). */
export interface NewRow<R extends { id: string }, L> {
  row: R;
  links?: L;
}

/**
 * Inserts a batch's new rows in input order: each run of rows without links in one
 * multi-row insert (`createMany`: Prisma's, or `insertRecords` where the columns allow,
 * several times cheaper), a row with links by its own `create`. The rows carry their ids,
 * so the event recorder knows every record written, and ids (ULIDs, monotonic) keep the
 * input's order. Returns the ids in input order.
 */
export async function insertInRuns<R extends { id: string }, L>(
  rows: readonly NewRow<R, L>[],
  write: { createMany: (rows: R[]) => Promise<unknown>; create: (row: R, links: L) => Promise<unknown> },
): Promise<string[]> {
  let run: R[] = [];
  const flush = async () => {
    if (run.length) await write.createMany(run);
    run = [];
  };
  for (const { row, links } of rows) {
    if (links === undefined) {
      run.push(row);
      continue;
    }
    await flush();
    await write.create(row, links);
  }
  await flush();
  return rows.map((r) => r.row.id);
}

/** Records read by id (one query), in the order of `ids`. */
export async function inOrder<T extends { id: string }>(records: PromiseLike<T[]>, ids: readonly string[]): Promise<T[]> {
  const byId = new Map((await records).map((r) => [r.id, r]));
  return ids.map((id) => {
    const record = byId.get(id);
    if (!record) throw new Error(`batch: record ${id} written but not read back`);
    return record;
  });
}

/** A batch's REST answer (its routes' `unwrap`): the operation's list of records as `{"data": [...]}`. */
export const batchData = (data: Record<string, unknown[]>) => ({ data: Object.values(data)[0] });
