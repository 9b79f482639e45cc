// npm run bench:search-index [-- --database <sqlite | postgresql admin URL>] [--rounds <n>] [--batch <n>]
//
// What the search index costs a write (issue 32: "the index costs a write at most 15% of its
// throughput"): `POST /api/v1/contacts` one after the other through createApp().fetch, in one
// process, on two fresh databases: one through the compiled service as it is, one through a
// copy of it whose writes give no record an entry (`entryColumns` answers nulls, so the
// events' INSERT writes no SearchEntry row and no full-text index entry). Batches of the two
// take turns, so that whatever else the machine does weighs on both alike (runs in separate
// processes varied by up to 60% here). Prints wall and CPU microseconds a write of each and
// the throughput of the one with the index over the one without. Never part of npm test.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { scratchDatabase } from '../../test/support/scratch-database.js';
import { buildService } from './processes.js';

const { values } = parseArgs({ options: { database: { type: 'string', default: 'sqlite' }, rounds: { type: 'string', default: '20' }, batch: { type: 'string', default: '100' } } });
const [rounds, batch] = [Number(values.rounds), Number(values.batch)];
const WARM_UP = 300;

buildService();
// Beside build/, so that the copy's own paths (../prisma, ../public, node_modules) resolve as the build's do.
const copy = resolve('build-without-search-index');
rmSync(copy, { recursive: true, force: true });
cpSync(resolve('build'), copy, { recursive: true });
const writer = resolve(copy, 'search/index-writer.js');
const source = readFileSync(writer, 'utf8');
const patched = source.replace('export function entryColumns(event) {', '$&\n    return ENTRY_COLUMNS.map(() => null);');
if (patched === source) throw new Error(`${writer}: entryColumns not found; the bench must be updated with the index writer`);
writeFileSync(writer, patched);

interface Variant {
  label: string;
  post(): Promise<void>;
  close(): Promise<void>;
  wallMs: number;
  cpuMs: number;
  writes: number;
}

/** The scratch databases, dropped at the end. */
const scratch: { drop(): Promise<void> }[] = [];
async function databaseUrl(label: string): Promise<string> {
  const database = await scratchDatabase(values.database === 'sqlite' ? 'sqlite' : 'postgresql', values.database!, `search_index_${label}`);
  scratch.push(database);
  return database.url;
}

async function variant(label: string, build: string): Promise<Variant> {
  const load = <T>(path: string) => import(pathToFileURL(resolve(build, path)).href) as Promise<T>;
  const { createKey } = await load<typeof import('../../src/auth/api-keys.js')>('auth/api-keys.js');
  const { openDatabase } = await load<typeof import('../../src/db/client.js')>('db/client.js');
  const { resolveDatabase } = await load<typeof import('../../src/db/database-url.js')>('db/database-url.js');
  const { applyMigrations } = await load<typeof import('../../src/db/migrate.js')>('db/migrate.js');
  const { composeService } = await load<typeof import('../../src/service.js')>('service.js');
  const { createApp } = await load<typeof import('../../src/server.js')>('server.js');
  const { setLogLevel } = await load<typeof import('../../src/log.js')>('log.js');
  setLogLevel('warn');
  const target = resolveDatabase(await databaseUrl(label.replace(/\W+/g, '_')));
  await applyMigrations(target);
  const database = await openDatabase(target);
  const app = createApp(composeService(database), { RATE_LIMIT_PER_MINUTE: 0, CORS_ORIGINS: [] });
  const { key } = await createKey(database.prisma, `search-index-bench-${label}`);
  let n = 0;
  return {
    label,
    async post() {
      n += 1;
      const body = JSON.stringify({ first_name: 'José', last_name: `Bench ${n}`, email: `bench-${n}@example.com`, properties: {} });
      const res = await app.fetch(new Request('http://bench/api/v1/contacts', { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body }));
      const text = await res.text();
      if (res.status !== 201) throw new Error(`${label}: POST /contacts answered ${res.status}: ${text.slice(0, 200)}`);
    },
    close: () => database.close(),
    wallMs: 0,
    cpuMs: 0,
    writes: 0,
  };
}

try {
  const withIndex = await variant('with the index', 'build');
  const without = await variant('without', copy);
  for (const v of [withIndex, without]) for (let i = 0; i < WARM_UP; i++) await v.post();
  for (let round = 0; round < rounds; round++) {
    for (const v of round % 2 ? [without, withIndex] : [withIndex, without]) {
      const [cpu, start] = [process.cpuUsage(), performance.now()];
      for (let i = 0; i < batch; i++) await v.post();
      v.wallMs += performance.now() - start;
      const used = process.cpuUsage(cpu);
      v.cpuMs += (used.user + used.system) / 1000;
      v.writes += batch;
    }
  }
  const us = (ms: number, v: Variant) => ((ms * 1000) / v.writes).toFixed(0);
  for (const v of [withIndex, without]) process.stdout.write(`${v.label}: ${us(v.wallMs, v)} µs wall, ${us(v.cpuMs, v)} µs CPU a write (${v.writes} writes)\n`);
  process.stdout.write(`throughput with the index / without: ${(without.wallMs / withIndex.wallMs).toFixed(3)}\n`);
  await withIndex.close();
  await without.close();
} finally {
  rmSync(copy, { recursive: true, force: true });
  await Promise.all(scratch.map((database) => database.drop()));
}
process.exit(0);
