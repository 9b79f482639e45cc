import { type Context, longReadsOf } from '../../graphql/context.js';
import { decodeCursor, encodeCursor } from '../../graphql/cursors.js';
import { invalid } from '../../graphql/errors.js';
import type { CursorPage } from '../../graphql/pagination.js';
import type { OrderKey } from '../../graphql/sorting.js';

/** Groups of records that are likely one (API.md section 12). */
export interface DuplicateGroup {
  reason: 'phone' | 'name' | 'domain';
  ids: string[];
}

export type DuplicatePage = CursorPage<DuplicateGroup>;

export type DuplicateType = 'contacts' | 'companies';

/** Rows read per statement where the contacts are walked by id (their phones), a batch at a time. */
const BATCH = 5_000;

/** Two phones are one when their digits are the same, or one's end with the other's of at least 8 digits (a country or area code left out). */
const samePhone = (a: string, b: string) => {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short === long || (short.length >= 8 && long.endsWith(short));
};

/**
 * Records grouped by normalized keys, each compared only with those sharing its key: the
 * cost grows with the number of records, never with its square. A bucket's members are
 * joined when the rule holds between them (union-find), so a phone without its country
 * code joins both the full number and another short form.
 */
class Buckets {
  readonly #buckets = new Map<string, { id: string; value: string; extra: Set<string> }[]>();
  add(key: string, member: { id: string; value: string; extra?: Iterable<string> }) {
    if (!key) return;
    const list = this.#buckets.get(key) ?? this.#buckets.set(key, []).get(key)!;
    list.push({ id: member.id, value: member.value, extra: new Set(member.extra ?? []) });
  }

  /** Adds to the `extra` of a record's entries (what the rule compares beside the value). */
  extend(extras: Map<string, string[]>) {
    for (const members of this.#buckets.values()) for (const m of members) for (const e of extras.get(m.id) ?? []) m.extra.add(e);
  }

  groups(reason: DuplicateGroup['reason'], same: (a: { value: string; extra: Set<string> }, b: { value: string; extra: Set<string> }) => boolean): DuplicateGroup[] {
    const out: DuplicateGroup[] = [];
    for (const members of this.#buckets.values()) {
      if (members.length < 2) continue;
      const parent = members.map((_, i) => i);
      const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
      for (let i = 0; i < members.length; i += 1) for (let j = i + 1; j < members.length; j += 1) if (same(members[i]!, members[j]!)) parent[root(i)] = root(j);
      const byRoot = new Map<number, Set<string>>();
      members.forEach((m, i) => (byRoot.get(root(i)) ?? byRoot.set(root(i), new Set()).get(root(i))!).add(m.id));
      for (const ids of byRoot.values()) if (ids.size >= 2) out.push({ reason, ids: [...ids].sort() });
    }
    return out;
  }
}

/** The workspace's records, BATCH at a time in id order, letting short requests through between batches (API.md section 5). */
async function* inBatches<T extends { id: string }>(ctx: Context, read: (where: { id?: { gt: string } }) => Promise<T[]>): AsyncGenerator<T[]> {
  let after: string | undefined;
  for (;;) {
    const rows = await read(after ? { id: { gt: after } } : {});
    yield rows;
    if (rows.length < BATCH) return;
    after = rows.at(-1)!.id;
    await ctx.nextLongReadPage?.();
  }
}

/** Keys of KEYS_PER_READ at a time in one `IN` (within every database's limit on parameters). */
const KEYS_PER_READ = 1_000;

/**
 * The values of `column` that two or more of the workspace's records share, grouped by the
 * database on its index: only the records of those keys are read, not the workspace.
 */
async function sharedKeys(delegate: { groupBy(args: object): Promise<unknown> }, column: 'nameKey' | 'domainKey'): Promise<string[]> {
  const groups = (await delegate.groupBy({ by: [column], where: { [column]: { not: '' } }, having: { [column]: { _count: { gt: 1 } } } })) as Record<string, string | null>[];
  return groups.map((g) => g[column]).filter((key): key is string => !!key);
}

async function* inKeyBatches<T>(ctx: Context, keys: string[], read: (keys: string[]) => Promise<T[]>): AsyncGenerator<T[]> {
  for (let start = 0; start < keys.length; start += KEYS_PER_READ) {
    if (start > 0) await ctx.nextLongReadPage?.();
    yield await read(keys.slice(start, start + KEYS_PER_READ));
  }
}

async function contactGroups(ctx: Context): Promise<DuplicateGroup[]> {
  const db = longReadsOf(ctx);
  const phoneKeys = (await db.propertyDefinition.findMany({ where: { object: 'contact', type: 'phone' }, select: { key: true } })).map((d) => d.key);
  const phones = new Buckets();
  // Phones are values of the contacts' own properties (what is a phone may change with a definition): read where any is set.
  if (phoneKeys.length > 0) {
    for await (const rows of inBatches(ctx, (where) => db.contact.findMany({ where, orderBy: { id: 'asc' }, take: BATCH, select: { id: true, properties: true } }))) {
      for (const row of rows) {
        const properties = (row.properties ?? {}) as Record<string, unknown>;
        for (const key of phoneKeys) {
          const digits = typeof properties[key] === 'string' ? (properties[key] as string).replace(/\D/g, '') : '';
          // Bucketed by the last 8 digits (or all, when fewer): two that match always share it.
          if (digits) phones.add(digits.slice(-8), { id: row.id, value: digits });
        }
      }
    }
  }
  // Names: only the contacts whose name another shares, with their companies and e-mail domains.
  const names = new Buckets();
  const companies = new Map<string, string[]>();
  const read = (keys: string[]) => db.contact.findMany({ where: { nameKey: { in: keys } }, select: { id: true, nameKey: true, email: true, companies: { select: { id: true } } } });
  for await (const rows of inKeyBatches(ctx, await sharedKeys(db.contact, 'nameKey'), read)) {
    for (const row of rows) {
      names.add(row.nameKey!, { id: row.id, value: row.email.slice(row.email.lastIndexOf('@') + 1).toLowerCase() });
      companies.set(row.id, row.companies.map((c) => c.id));
    }
  }
  names.extend(companies);
  return [
    ...phones.groups('phone', (a, b) => samePhone(a.value, b.value)),
    // The same name, and a company or an e-mail domain in common.
    ...names.groups('name', (a, b) => a.value === b.value || [...a.extra].some((id) => b.extra.has(id))),
  ];
}

async function companyGroups(ctx: Context): Promise<DuplicateGroup[]> {
  const db = longReadsOf(ctx);
  const groups: DuplicateGroup[] = [];
  for (const [column, reason] of [['domainKey', 'domain'], ['nameKey', 'name']] as const) {
    const buckets = new Buckets();
    const read = (keys: string[]) => db.company.findMany({ where: { [column]: { in: keys } }, select: { id: true, nameKey: true, domainKey: true } });
    for await (const rows of inKeyBatches(ctx, await sharedKeys(db.company, column), read)) for (const row of rows) buckets.add(row[column]!, { id: row.id, value: '' });
    groups.push(...buckets.groups(reason, () => true));
  }
  return groups;
}

const KEYS: OrderKey[] = [{ name: 'key', field: 'key', type: 'String', nullable: false, desc: false, nullsFirst: false }];
/** A group's place in the answer: its first id, then its reason. */
const keyOf = (group: DuplicateGroup) => `${group.ids[0]} ${group.reason}`;

/** A page of the workspace's duplicate groups, by cursor (the envelope of section 8). */
export async function duplicatesPage(ctx: Context, type: DuplicateType, args: { perPage: number; cursor?: string }): Promise<DuplicatePage> {
  let position: { forward: boolean; key: string } | undefined;
  if (args.cursor) {
    const decoded = decodeCursor(args.cursor, `duplicates:${type}`, KEYS, '');
    if (!decoded) throw invalid({ cursor: ['The cursor is invalid: it was not given by this list.'] });
    position = { forward: decoded.forward, key: decoded.values[0] as string };
  }
  const groups = (type === 'contacts' ? await contactGroups(ctx) : await companyGroups(ctx)).sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  // The first group past the position (forward), or at or past it (the page before it ends there).
  const at = (past: (key: string) => boolean) => {
    const index = groups.findIndex((g) => past(keyOf(g)));
    return index === -1 ? groups.length : index;
  };
  const bound = position?.key;
  const backward = position !== undefined && !position.forward;
  const end = backward ? at((key) => key >= bound!) : groups.length;
  const start = backward ? Math.max(0, end - args.perPage) : bound !== undefined ? at((key) => key > bound) : 0;
  const data = groups.slice(start, backward ? end : start + args.perPage);
  const cursorAt = (group: DuplicateGroup | undefined, forward: boolean) => (group ? encodeCursor(`duplicates:${type}`, '', forward, KEYS, { key: keyOf(group) }) : null);
  const last = start + data.length;
  return {
    data,
    perPage: args.perPage,
    nextCursor: last < groups.length ? cursorAt(data.at(-1), true) : null,
    prevCursor: start > 0 ? cursorAt(data[0], false) : null,
  };
}
