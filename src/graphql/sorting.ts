import { getDatamodel } from '../generated/sqlite/pothos-types.js';

/** What a sort key's values are, for a cursor to carry them and read them back. */
export type KeyType = 'String' | 'DateTime' | 'Decimal' | 'Int';

export interface SortableField {
  /** The Prisma field. */
  field: string;
  type: KeyType;
  nullable: boolean;
}

/** One key of a list's order: nulls come last in the list's order (first when walking it backwards). */
export interface OrderKey extends SortableField {
  name: string;
  desc: boolean;
  nullsFirst: boolean;
}

/**
 * A list's sorting rules (API.md section 8): its REST name (a cursor is bound to it),
 * the fields `sort` accepts (REST names: id, created_at and updated_at where the model
 * has them, plus the list's own), and the order without `sort` (section 2's).
 */
export interface ListSpec {
  name: string;
  /** The Prisma model. */
  typeName: string;
  /** The GraphQL object type of its rows, when it is not named after the model (`Refund` of `PaymentRefund`). */
  objectName: string;
  fields: ReadonlyMap<string, SortableField>;
  defaultSort: string;
  /** The model has createdAt / updatedAt, so `created_since` / `updated_since` filter it. */
  since: { created: boolean; updated: boolean };
}

const { models } = getDatamodel().datamodel;
const KEY_TYPES = new Set<string>(['String', 'DateTime', 'Decimal', 'Int']);

/** `extra`: the REST names of the list's own sortable fields; their Prisma fields are the camelCase names. */
export function listSpec(name: string, typeName: string, extra: readonly string[] = [], defaultSort = 'id', objectName = typeName): ListSpec {
  const model = models[typeName];
  if (!model) throw new Error(`listSpec: no model ${typeName}`);
  const fields = new Map<string, SortableField>();
  for (const restName of ['id', 'created_at', 'updated_at', ...extra]) {
    const field = restName.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    const found = model.fields.find((f) => f.name === field);
    if (!found) {
      if (extra.includes(restName)) throw new Error(`listSpec ${name}: ${typeName} has no field ${field}`);
      continue;
    }
    if (!KEY_TYPES.has(found.type)) throw new Error(`listSpec ${name}: ${typeName}.${field} is a ${found.type}, not sortable`);
    fields.set(restName, { field, type: found.type as KeyType, nullable: !found.isRequired });
  }
  const spec = { name, typeName, objectName, fields, defaultSort, since: { created: fields.has('created_at'), updated: fields.has('updated_at') } };
  parseSort(spec, defaultSort); // a wrong default stops the start
  return spec;
}

export class SortError extends Error {}

/**
 * `sort` as order keys: comma-separated REST names, `-` for descending, each at most
 * once; `id` in the first key's direction closes the order when it is not in it, so
 * every order is total (a cursor needs that).
 */
export function parseSort(spec: ListSpec, sort: string): OrderKey[] {
  const keys: OrderKey[] = [];
  for (const part of sort.split(',')) {
    const desc = part.startsWith('-');
    const name = desc ? part.slice(1) : part;
    const field = spec.fields.get(name);
    if (!field) throw new SortError(`The selected sort is invalid: ${JSON.stringify(name).slice(0, 60)} is not one of ${[...spec.fields.keys()].join(', ')}.`);
    if (keys.some((k) => k.name === name)) throw new SortError(`The sort field names ${name} twice.`);
    keys.push({ ...field, name, desc, nullsFirst: false });
  }
  if (!keys.some((k) => k.name === 'id')) keys.push({ ...spec.fields.get('id')!, name: 'id', desc: keys[0]!.desc, nullsFirst: false });
  return keys;
}

/** The sort as written back (the keys a cursor is bound to). */
export const sortText = (keys: readonly OrderKey[]) => keys.map((k) => (k.desc ? '-' : '') + k.name).join(',');

/** The same order walked backwards: directions flip, and nulls come first. */
export const reversed = (keys: readonly OrderKey[]): OrderKey[] => keys.map((k) => ({ ...k, desc: !k.desc, nullsFirst: !k.nullsFirst }));

/** Prisma's orderBy for the keys (nulls placement only where a field can be null: Prisma refuses it elsewhere). */
export const orderByOf = (keys: readonly OrderKey[]) =>
  keys.map((k) => {
    const sort = k.desc ? 'desc' : 'asc';
    return { [k.field]: k.nullable ? { sort, nulls: k.nullsFirst ? 'first' : 'last' } : sort };
  });

type Where = Record<string, unknown>;

/**
 * The rows strictly after the row whose key values are `values`, in the keys' order: a
 * keyset condition. For a key that cannot be null it reads `k >= v AND (k > v OR ...)`,
 * whose first half an index can seek to, so any depth costs what the first page does.
 */
export function after(keys: readonly OrderKey[], values: readonly unknown[], i = 0): Where {
  const k = keys[i]!;
  const v = values[i];
  const rest = i + 1 < keys.length ? () => after(keys, values, i + 1) : undefined;
  const f = k.field;
  const beyond = k.desc ? 'lt' : 'gt';
  if (v === null) {
    const amongNulls = rest ? [{ AND: [{ [f]: null }, rest()] }] : [];
    const nonNulls = k.nullsFirst ? [{ [f]: { not: null } }] : [];
    return { OR: [...amongNulls, ...nonNulls] };
  }
  if (!k.nullable) {
    if (!rest) return { [f]: { [beyond]: v } };
    return { AND: [{ [f]: { [k.desc ? 'lte' : 'gte']: v } }, { OR: [{ [f]: { [beyond]: v } }, rest()] }] };
  }
  return {
    OR: [{ [f]: { [beyond]: v } }, ...(k.nullsFirst ? [] : [{ [f]: null }]), ...(rest ? [{ AND: [{ [f]: v }, rest()] }] : [])],
  };
}
