// npm run bench:csv -- [--provider sqlite|postgresql] [--rows 1000000] [--database <postgresql admin URL>]
//
// CSV import and export at scale (API.md section 8): writes a file of --rows contacts
// (with a property and ~1 in 50 formula-looking cells), imports it into a scratch
// database with the command line (`build/cli.js import`, as a user runs it), then starts
// the service on that database and exports the contacts over HTTP, sampling the
// service's resident memory while it streams. Prints rows/s for both and the memory
// growth, as a Markdown table.
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKey } from '../../src/auth/api-keys.js';
import { openDatabase } from '../../src/db/client.js';
import { resolveDatabase } from '../../src/db/database-url.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { scratchDatabase } from '../../test/support/scratch-database.js';
import { contactBenchOptions, importContacts } from './contacts-import.js';
import { buildService, startServer } from './processes.js';

const progress = (line: string) => process.stderr.write(`${line}\n`);
const { provider, rows: ROWS, database } = contactBenchOptions(1_000_000, {});

const dir = mkdtempSync(join(tmpdir(), 'salesgraph-csv-bench-'));
const scratch = await scratchDatabase(provider, database, 'csv');
const target = resolveDatabase(scratch.url);
let stop: (() => Promise<void>) | undefined;
try {
  await applyMigrations(target);
  const database = await openDatabase(target);
  const { key } = await createKey(database.prisma, 'csv', 'csv benchmark');
  const workspace = await database.prisma.workspace.findUniqueOrThrow({ where: { name: 'csv' } });
  await database.prisma.propertyDefinition.create({ data: { id: '01PD0000000000000000000001', workspaceId: workspace.id, object: 'contact', key: 'tier', label: 'Tier', type: 'enum', options: ['gold', 'silver'] } });
  await database.close();

  const file = join(dir, 'contacts.csv');
  const out = createWriteStream(file);
  out.write('first_name,last_name,email,notes,properties.tier\r\n');
  for (let i = 1; i <= ROWS; i += 1) {
    const notes = i % 50 === 0 ? `"'=note ${i}"` : `note ${i}`;
    if (!out.write(`First ${i},Last ${i},contact${i}@example.com,${notes},${i % 2 ? 'gold' : 'silver'}\r\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  progress(`wrote ${ROWS.toLocaleString('en-US')} rows (${(statSync(file).size / 1e6).toFixed(0)} MB)`);

  buildService();
  const { summary, seconds: importSeconds } = importContacts(scratch.url, file, 'csv');
  progress(`import: ${summary} in ${importSeconds.toFixed(1)} s`);

  const service = await startServer('service', 'build/main.js', { DATABASE_URL: scratch.url, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn', MIGRATE_ON_START: 'false' });
  stop = () => service.stop();
  // A warm-up export of one row, so the first load of the code is not counted as growth.
  await (await fetch(`${service.url}/api/v1/contacts/export?search=contact1@`, { headers: { 'X-Api-Key': key } })).text();
  const rssBefore = service.rssBytes();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, service.rssBytes())), 100);
  const exportStarted = performance.now();
  const response = await fetch(`${service.url}/api/v1/contacts/export`, { headers: { 'X-Api-Key': key } });
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
  }
  const exportSeconds = (performance.now() - exportStarted) / 1000;
  clearInterval(sampler);
  if (lines !== ROWS + 1) throw new Error(`export: ${lines} lines, expected ${ROWS + 1}`);

  const node = execFileSync(process.execPath, ['--version'], { encoding: 'utf8' }).trim();
  process.stdout.write(
    [
      `## CSV, ${ROWS.toLocaleString('en-US')} contacts on ${provider === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
      '',
      `Node ${node}, ${availableParallelism()} × ${cpus()[0]?.model ?? 'unknown CPU'}. Import: \`cli -- import contacts\` of a generated file; export: \`GET /api/v1/contacts/export\` read to its end.`,
      '',
      '| | seconds | rows/s |',
      '| --- | ---: | ---: |',
      `| import | ${importSeconds.toFixed(1)} | ${Math.round(ROWS / importSeconds).toLocaleString('en-US')} |`,
      `| export | ${exportSeconds.toFixed(1)} | ${Math.round(ROWS / exportSeconds).toLocaleString('en-US')} |`,
      '',
      `Service resident memory during the export: ${(rssBefore / 2 ** 20).toFixed(0)} MB before, ${(rssPeak / 2 ** 20).toFixed(0)} MB at the peak (+${((rssPeak - rssBefore) / 2 ** 20).toFixed(0)} MB).`,
      '',
    ].join('\n'),
  );
} finally {
  await stop?.();
  await scratch.drop();
  rmSync(dir, { recursive: true, force: true });
}
