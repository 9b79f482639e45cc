// npm run bench:story [-- --database <sqlite | postgresql admin URL>] [--items <n>] [--contacts <n>]
//
// A customer's whole story (issue 45) at scale, in one process on a fresh database:
// - a timeline page of a contact with `--items` notes and changes (default 100,000): the
//   first page and a page deep in the walk (the cost should not grow with the history);
// - the duplicates of `--contacts` contacts (default 100,000), a tenth of them twins;
// - a list, a GET by id and a search of contacts, before and after a tenth of them went to
//   the trash (the rows inserted in bulk are indexed for search by the backfill first).
// Rows are inserted in bulk (createMany), not through the API. Never part of npm test.
import { parseArgs } from 'node:util';
import { createKey } from '../../src/auth/api-keys.js';
import { openDatabase } from '../../src/db/client.js';
import { resolveDatabase } from '../../src/db/database-url.js';
import { newId } from '../../src/db/ids.js';
import { personNameKey } from '../../src/modules/duplicates/keys.js';
import { indexUnindexedRecords } from '../../src/search/backfill.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { setLogLevel } from '../../src/log.js';
import { listen } from '../../src/serve.js';
import { composeService } from '../../src/service.js';
import { scratchDatabase } from '../../test/support/scratch-database.js';
import { percentile } from './load.js';

const { values } = parseArgs({ options: { database: { type: 'string', default: 'sqlite' }, items: { type: 'string', default: '100000' }, contacts: { type: 'string', default: '100000' } } });
const ITEMS = Number(values.items);
const CONTACTS = Number(values.contacts);
const CHUNK = 5_000;

setLogLevel('warn');
const scratch = await scratchDatabase(values.database === 'sqlite' ? 'sqlite' : 'postgresql', values.database!, 'story_bench');
const target = resolveDatabase(scratch.url);
await applyMigrations(target);
const database = await openDatabase(target);
const service = composeService(database);
const server = await listen(service, { HOST: '127.0.0.1', PORT: 0, RATE_LIMIT_PER_MINUTE: 0, LOG_LEVEL: 'warn' });
const { key, workspaceId } = await createKey(database.prisma, 'story-bench', 'bench');
const get = async (path: string) => {
  const started = performance.now();
  // A keep-alive connection idle through the bulk inserts was closed by the server: the first request after them retries on a new one.
  const send = () => fetch(`${server.url}/api/v1${path}`, { headers: { 'X-Api-Key': key } });
  const res = await send().catch(send);
  const body = (await res.json()) as { next_cursor?: string; data: unknown[] };
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, body };
};
const prisma = database.prisma;

// 1. A busy contact: ITEMS notes about it (and its own creation event).
const busy = (await (await fetch(`${server.url}/api/v1/contacts`, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify({ first_name: 'Busy', email: 'busy@example.com' }) })).json()) as { id: string };
process.stderr.write(`inserting ${ITEMS} notes about one contact...\n`);
for (let done = 0; done < ITEMS; done += CHUNK) {
  const ids = Array.from({ length: Math.min(CHUNK, ITEMS - done) }, () => newId());
  await prisma.note.createMany({ data: ids.map((id, i) => ({ id, workspaceId, body: `Note ${done + i}\nabout the busy contact`, updatedAt: new Date() })) });
  const links = ids.map((id) => `('${busy.id}', '${id}')`).join(',');
  await prisma.$executeRawUnsafe(`INSERT INTO "_NoteContacts" ("A", "B") VALUES ${links}`);
}
const pageTimes = async (path: string, rounds = 200) => {
  const times: number[] = [];
  for (let i = 0; i < rounds; i += 1) times.push((await get(path)).ms);
  return times.sort((a, b) => a - b);
};
const first = await pageTimes(`/contacts/${busy.id}/timeline`);
// A page deep in the walk: follow next cursors 40 pages of 100 in.
let cursor = '';
for (let i = 0; i < 40; i += 1) {
  const next = (await get(`/contacts/${busy.id}/timeline?per_page=100&cursor=${cursor}`)).body.next_cursor;
  if (!next) break;
  cursor = next;
}
const deep = await pageTimes(`/contacts/${busy.id}/timeline?cursor=${cursor}`);

// 2. Duplicates: CONTACTS contacts, one in ten sharing a name and a company with another.
process.stderr.write(`inserting ${CONTACTS} contacts...\n`);
const company = (await (await fetch(`${server.url}/api/v1/companies`, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Acme' }) })).json()) as { id: string };
for (let done = 0; done < CONTACTS; done += CHUNK) {
  const rows = Array.from({ length: Math.min(CHUNK, CONTACTS - done) }, (_, i) => {
    const n = done + i;
    const name = n % 10 === 0 ? `Twin ${n}` : n % 10 === 1 ? `Twin ${n - 1}` : `Person ${n}`;
    return { id: newId(), workspaceId, firstName: name, lastName: 'Bench', email: `p${n}@bench.example`, properties: {}, search: '', nameKey: personNameKey(name, 'Bench'), updatedAt: new Date() };
  });
  await prisma.contact.createMany({ data: rows });
  const twins = rows.filter((r) => r.firstName.startsWith('Twin'));
  if (twins.length) await prisma.$executeRawUnsafe(`INSERT INTO "_CompanyToContact" ("A", "B") VALUES ${twins.map((r) => `('${company.id}', '${r.id}')`).join(',')}`);
}
const duplicates: number[] = [];
let groups = 0;
for (let i = 0; i < 5; i += 1) {
  const { ms, body } = await get('/contacts/duplicates?per_page=100');
  duplicates.push(ms);
  groups = body.data.length;
}
duplicates.sort((a, b) => a - b);

// 3. Reads with a tenth of the contacts in the trash, against the same reads before. The bulk-inserted
// records are indexed for search first, by the backfill a serving process runs.
process.stderr.write('indexing them for search...\n');
await indexUnindexedRecords(database.prisma, service.represent, () => false, 1_000);
// PostgreSQL: a loaded database as autovacuum keeps it (statistics, the visibility map), before either set of reads.
const vacuum = () => (target.provider === 'postgresql' ? prisma.$executeRawUnsafe('VACUUM ANALYZE "SearchEntry", "Contact", "TrashedRecord"') : Promise.resolve(0));
await vacuum();
const reads = async () => {
  const sample = (await prisma.contact.findMany({ where: { workspaceId }, select: { id: true }, take: 200, skip: 5_000 })).map((c) => c.id);
  const list: number[] = [];
  const byId: number[] = [];
  const search: number[] = [];
  for (let i = 0; i < 200; i += 1) {
    list.push((await get('/contacts?per_page=25')).ms);
    byId.push((await get(`/contacts/${sample[i % sample.length]}`)).ms);
    search.push((await get(`/search?q=person%20${1000 + i * 7}&per_page=25`)).ms);
  }
  return [list, byId, search].map((times) => times.sort((a, b) => a - b));
};
await reads(); // warms both sets alike: the first set of reads after a bulk load runs cold
const live = await reads();
process.stderr.write(`moving ${CONTACTS / 10} contacts to the trash...\n`);
const doomed = (await prisma.contact.findMany({ where: { workspaceId, firstName: { startsWith: 'Person' } }, select: { id: true }, take: CONTACTS / 10, orderBy: { id: 'desc' } })).map((c) => c.id);
for (let i = 0; i < doomed.length; i += 50) {
  await Promise.all(doomed.slice(i, i + 50).map((id) => fetch(`${server.url}/api/v1/contacts/${id}`, { method: 'DELETE', headers: { 'X-Api-Key': key } }).then((r) => r.arrayBuffer())));
}
const trashed = await reads();
// PostgreSQL: the deletions left dead rows and index entries that autovacuum reclaims in time; the same reads once it has.
await vacuum();
const vacuumed = target.provider === 'postgresql' ? await reads() : undefined;

const ms = (sorted: number[], p: number) => percentile(sorted, p).toFixed(1);
console.log(`database: ${target.provider}; one contact with ${ITEMS + 1} timeline items; ${CONTACTS} contacts for duplicates\n`);
console.log('| figure | p50 (ms) | p95 (ms) |');
console.log('| --- | ---: | ---: |');
console.log(`| timeline, first page of 25 (200 requests) | ${ms(first, 50)} | ${ms(first, 95)} |`);
console.log(`| timeline, a page 4,000 items in (200 requests) | ${ms(deep, 50)} | ${ms(deep, 95)} |`);
console.log(`| duplicates of ${CONTACTS} contacts, first page (5 requests; ${groups} groups shown) | ${ms(duplicates, 50)} | ${ms(duplicates, 95)} |`);
const names = ['GET /contacts?per_page=25', 'GET /contacts/{id}', 'GET /search?q=person <n>'];
names.forEach((name, i) => {
  console.log(`| ${name}, all live (200 requests) | ${ms(live[i]!, 50)} | ${ms(live[i]!, 95)} |`);
  console.log(`| ${name}, a tenth in the trash (200 requests) | ${ms(trashed[i]!, 50)} | ${ms(trashed[i]!, 95)} |`);
  if (vacuumed) console.log(`| ${name}, a tenth in the trash, after VACUUM (200 requests) | ${ms(vacuumed[i]!, 50)} | ${ms(vacuumed[i]!, 95)} |`);
});

await server.close();
await database.close();
await scratch.drop();
