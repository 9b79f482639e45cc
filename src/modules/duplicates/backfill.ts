import type { Db } from '../../db/client.js';
import { Prisma } from '../../generated/sqlite/client.js';
import type { Loop } from '../../jobs/loops.js';
import { companyNameKey, domainKey, personNameKey } from './keys.js';

/** Rows per statement: one UPDATE a batch, a few milliseconds of the one SQLite connection. */
export const KEYS_BATCH = 500;

/** `UPDATE table SET column = CASE id ... END` for the rows whose column is still null (a write meanwhile set its own). */
function fillColumn(db: Db, table: string, column: string, keys: [id: string, key: string][]) {
  if (keys.length === 0) return Promise.resolve(0);
  const cases = Prisma.join(keys.map(([id, key]) => Prisma.sql`WHEN ${id} THEN ${key}`), ' ');
  const ids = Prisma.join(keys.map(([id]) => id));
  return db.$executeRaw`UPDATE ${Prisma.raw(`"${table}"`)} SET ${Prisma.raw(`"${column}"`)} = CASE "id" ${cases} END WHERE "id" IN (${ids}) AND ${Prisma.raw(`"${column}"`)} IS NULL`;
}

/**
 * Computes the duplicates' keys (src/modules/duplicates/keys.ts) of the rows written before
 * they existed (an upgrade, a restore of such a row), a batch at a time in id order. Writes
 * set their own keys, so an update here only fills a key still null. Returns how many keys it filled.
 */
export async function keyUnkeyedRecords(prisma: Db, stopping: () => boolean = () => false, batch = KEYS_BATCH): Promise<number> {
  let keyed = 0;
  for (let after = ''; !stopping(); ) {
    const rows = await prisma.contact.findMany({ where: { nameKey: null, id: { gt: after } }, orderBy: { id: 'asc' }, take: batch, select: { id: true, firstName: true, lastName: true } });
    keyed += await fillColumn(prisma, 'Contact', 'nameKey', rows.map((r) => [r.id, personNameKey(r.firstName, r.lastName)]));
    if (rows.length < batch) break;
    after = rows.at(-1)!.id;
    await new Promise((resolve) => setImmediate(resolve));
  }
  for (let after = ''; !stopping(); ) {
    const rows = await prisma.company.findMany({ where: { OR: [{ nameKey: null }, { domainKey: null }], id: { gt: after } }, orderBy: { id: 'asc' }, take: batch, select: { id: true, name: true, domain: true } });
    const names = await fillColumn(prisma, 'Company', 'nameKey', rows.map((r) => [r.id, companyNameKey(r.name)]));
    const domains = await fillColumn(prisma, 'Company', 'domainKey', rows.map((r) => [r.id, domainKey(r.domain)]));
    keyed += names + domains;
    if (rows.length < batch) break;
    after = rows.at(-1)!.id;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return keyed;
}

const DAY_MS = 86_400_000;

/** The keys' backfill when a serving process starts (two statements when nothing is missing), then daily. */
export function duplicateKeysLoop(prisma: Db): Loop {
  return {
    name: 'duplicate-keys',
    async run(stopping) {
      await keyUnkeyedRecords(prisma, stopping);
      return DAY_MS;
    },
  };
}
