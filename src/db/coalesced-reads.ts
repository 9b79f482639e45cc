import { overDelegates } from './tenancy.js';

type Args = Record<string, unknown> & { where?: Record<string, unknown> };
type Delegate = Record<string, (args?: Args) => PromiseLike<unknown>>;

interface Group {
  rest: Args;
  waiting: Map<string, { resolve: (row: unknown) => void; reject: (error: unknown) => void }[]>;
}

/** A model's row as its write returned it (every scalar field, no relation), if the caller knows one. */
export type KnownRow = (model: string, id: string) => Record<string, unknown> | undefined;

/**
 * The part of `row` a `findUnique` with these arguments (besides `where`) answers: the
 * whole row without a selection, the fields of a selection of scalars; undefined for
 * anything else (relations, counts, omissions), which must be read.
 */
function answeredFrom(rest: Args, row: Record<string, unknown>): Record<string, unknown> | undefined {
  const { select, ...others } = rest as { select?: Record<string, unknown> };
  if (Object.keys(others).length > 0) return undefined;
  if (select === undefined) return { ...row };
  const fields = Object.keys(select);
  if (!fields.every((field) => select[field] === true && Object.hasOwn(row, field))) return undefined;
  return Object.fromEntries(fields.map((field) => [field, row[field]]));
}

/**
 * A client on which the `findUnique({ where: { id }, select or include })` calls made
 * together (in one turn of the event loop) with the same selection are one `findMany` per
 * model: the REST objects of a batch's events, one GET document run per record, read in
 * one query. Prisma sends such calls as one SQL statement too, but its client still costs
 * about 0.1 ms of CPU per call, ten times this. Any other call is the client's own.
 * `known`: rows this transaction's writes returned, which answer such a call without a
 * statement (a record's event reads the record its write has just returned).
 */
export function coalescedReads<T extends object>(db: T, known?: KnownRow): T {
  const base = db as unknown as Record<string, Delegate>;
  return overDelegates(db, (model, delegate) => {
      const from = base[delegate]!;
      const groups = new Map<string, Group>();
      const flush = async (key: string) => {
        const group = groups.get(key)!;
        groups.delete(key);
        try {
          const rows = (await from.findMany!({ ...group.rest, where: { id: { in: [...group.waiting.keys()] } } })) as { id: string }[];
          const byId = new Map(rows.map((row) => [row.id, row]));
          for (const [id, waiters] of group.waiting) for (const w of waiters) w.resolve(byId.get(id) ?? null);
        } catch (error) {
          for (const waiters of group.waiting.values()) for (const w of waiters) w.reject(error);
        }
      };
      const findUnique = (args?: Args) => {
        const { where, ...rest } = args ?? {};
        const select = rest.select as Record<string, unknown> | undefined;
        if (!where || Object.keys(where).length !== 1 || typeof where.id !== 'string' || (select && select.id !== true)) return from.findUnique!(args);
        const row = known?.(model, where.id);
        const answer = row && answeredFrom(rest, row);
        if (answer) return Promise.resolve(answer);
        const key = JSON.stringify(rest);
        let group = groups.get(key);
        if (!group) {
          groups.set(key, (group = { rest, waiting: new Map() }));
          setImmediate(() => void flush(key));
        }
        const waiting = group.waiting;
        const id = where.id;
        return new Promise((resolve, reject) => {
          const waiters = waiting.get(id) ?? [];
          waiting.set(id, [...waiters, { resolve, reject }]);
        });
      };
      // Defined, not assigned: the delegate it inherits from is frozen.
      return Object.freeze(Object.create(from, { findUnique: { value: findUnique, enumerable: true } }));
  });
}
