// npm run bench:heavy-reads -- [--provider sqlite|postgresql] [--rows 100000] [--seconds 10] [--database <postgresql admin URL>]
//
// API.md section 5, "heavy reads never stall the server": imports --rows contacts into a
// scratch database with the command line, starts the service (build/main.js), and
// measures GET /api/v1/contacts/{id} (p50, p99) and GET /healthz (p99) from one probing
// client, first idle, then while two clients download GET /api/v1/contacts/export over
// and over and two run a search that matches every contact. Prints a Markdown table with
// the targets (loaded GET p99 within 3 × idle p99 + 10 ms, /healthz p99 within 50 ms)
// and the export's rows/s alone and under the load.
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { createKey } from '../../src/auth/api-keys.js';
import { openDatabase } from '../../src/db/client.js';
import { resolveDatabase } from '../../src/db/database-url.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { scratchDatabase } from '../../test/support/scratch-database.js';
import { contactBenchOptions, importContacts } from './contacts-import.js';
import { percentile } from './load.js';
import { buildService, startServer } from './processes.js';

const progress = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The load's process (plain JavaScript, run with \`node -e\`): 2 exporters and 2 searchers,
 * each on its own connection, until SIGTERM; then one JSON line of what they finished.
 */
const LOAD_SCRIPT = `
const http = require('node:http');
const [url, key, rows] = process.argv.slice(1);
const headers = { 'x-api-key': key };
let exports = 0, exportedRows = 0, searches = 0, loading = true;
const started = performance.now();
const get = (path, agent, onData) => new Promise((resolve, reject) => {
  http.get(url + path, { headers, agent }, (res) => {
    if (res.statusCode !== 200) reject(new Error(path + ': ' + res.statusCode));
    res.on('data', onData || (() => {}));
    res.on('end', resolve);
  }).on('error', reject);
});
const exporter = async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  while (loading) {
    let lines = 0;
    await get('/api/v1/contacts/export', agent, (chunk) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
        lines += 1;
        if (loading) exportedRows += 1;
      }
    });
    if (!loading) break;
    if (lines !== Number(rows) + 1) throw new Error('export: ' + lines + ' lines');
    exports += 1;
  }
};
const searcher = async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  while (loading) {
    await get('/api/v1/search?q=first&types=contacts&per_page=15', agent);
    searches += 1;
  }
};
Promise.all([exporter(), exporter(), searcher(), searcher()]).catch((e) => { console.error(e); process.exit(1); });
process.on('SIGTERM', () => {
  loading = false;
  console.log(JSON.stringify({ exports, exportedRowsPerSecond: exportedRows / ((performance.now() - started) / 1000), searches }));
  process.exit(0);
});
console.log('started');
`;
const { provider, rows: ROWS, database, values } = contactBenchOptions(100_000, { seconds: { type: 'string', default: '10' } });
const SECONDS = Number(values.seconds);
if (!(SECONDS > 0)) throw new Error('--seconds must be a positive number');

const dir = mkdtempSync(join(tmpdir(), 'salesgraph-heavy-bench-'));
const scratch = await scratchDatabase(provider, database, 'heavy');
const target = resolveDatabase(scratch.url);
let stop: (() => Promise<void>) | undefined;
// Each client its own connection, as separate users are.
const agent = () => new Agent({ keepAlive: true, maxSockets: 1 });
/** A GET's status and its body as a stream of chunks. */
const send = (url: string, headers: Record<string, string>, agent: Agent) =>
  new Promise<{ status: number; body: AsyncIterable<Buffer> }>((resolve, reject) => {
    request(url, { headers, agent }, (res) => resolve({ status: res.statusCode!, body: res })).on('error', reject).end();
  });
const text = async (body: AsyncIterable<Buffer>) => {
  let all = '';
  for await (const chunk of body) all += chunk.toString();
  return all;
};

try {
  await applyMigrations(target);
  const database = await openDatabase(target);
  const { key } = await createKey(database.prisma, 'heavy', 'heavy-reads benchmark');
  await database.close();

  const file = join(dir, 'contacts.csv');
  const out = createWriteStream(file);
  out.write('first_name,last_name,email,notes\r\n');
  for (let i = 1; i <= ROWS; i += 1) {
    if (!out.write(`First ${i},Last ${i},contact${i}@example.com,note ${i}\r\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  buildService();
  importContacts(scratch.url, file, 'heavy');
  progress(`imported ${ROWS.toLocaleString('en-US')} contacts`);

  const service = await startServer('service', 'build/main.js', { DATABASE_URL: scratch.url, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn', MIGRATE_ON_START: 'false' });
  stop = () => service.stop();
  const headers = { 'x-api-key': key };
  const get = async (dispatcher: Agent, path: string) => {
    const res = await send(`${service.url}${path}`, headers, dispatcher);
    const body = await text(res.body);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`);
    return body;
  };
  const ids = (JSON.parse(await get(agent(), '/api/v1/contacts?per_page=100')) as { data: { id: string }[] }).data.map((c) => c.id);

  /** One client asking GET by id and /healthz in turn for `seconds`: their latencies in ms. */
  async function probe(seconds: number) {
    const client = agent();
    const byId: number[] = [];
    const health: number[] = [];
    const until = performance.now() + seconds * 1000;
    for (let i = 0; performance.now() < until; i += 1) {
      let started = performance.now();
      await get(client, `/api/v1/contacts/${ids[i % ids.length]}`);
      byId.push(performance.now() - started);
      started = performance.now();
      await get(client, '/healthz');
      health.push(performance.now() - started);
    }
    client.destroy();
    const sorted = (a: number[]) => Float64Array.from(a).sort();
    const [b, h] = [sorted(byId), sorted(health)];
    return { requests: byId.length, p50: percentile(b, 50), p99: percentile(b, 99), healthP99: percentile(h, 99) };
  }

  /** Exports the whole list once, counting its lines. */
  async function exportAll(client: Agent) {
    const res = await send(`${service.url}/api/v1/contacts/export`, headers, client);
    let lines = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
    if (lines !== ROWS + 1) throw new Error(`export: ${lines} lines, expected ${ROWS + 1}`);
  }

  await probe(1); // warm-up
  await exportAll(agent());
  // An export alone, three times after that warm-up one: the median.
  const alone: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const started = performance.now();
    await exportAll(agent());
    alone.push(ROWS / ((performance.now() - started) / 1000));
  }
  const aloneRowsPerSecond = alone.sort((a, b) => a - b)[1]!;
  progress(`export alone: ${alone.map(Math.round).join(', ')} rows/s`);
  const idle = await probe(SECONDS);
  progress(`idle: ${JSON.stringify(idle)}`);

  // The load, from a process of its own (so that reading the exports does not delay the
  // probe's answers): two clients exporting every contact over and over, two searching.
  const loader = spawn(process.execPath, ['-e', LOAD_SCRIPT, service.url, key, String(ROWS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let loadOutput = '';
  loader.stdout!.on('data', (d: Buffer) => (loadOutput += d.toString()));
  const loaderExit = once(loader, 'exit');
  await once(loader.stdout!, 'data'); // "started"
  const loaded = await probe(SECONDS);
  loader.kill('SIGTERM');
  await loaderExit;
  const { exports, exportedRowsPerSecond, searches } = JSON.parse(loadOutput.trim().split('\n').at(-1)!) as { exports: number; exportedRowsPerSecond: number; searches: number };
  progress(`loaded: ${JSON.stringify(loaded)}, ${exports} exports, ${searches} searches`);

  const ms = (n: number) => n.toFixed(1);
  const goal = 3 * idle.p99 + 10;
  const node = execFileSync(process.execPath, ['--version'], { encoding: 'utf8' }).trim();
  process.stdout.write(
    [
      `## Heavy reads, ${ROWS.toLocaleString('en-US')} contacts on ${provider === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
      '',
      `Node ${node}, ${availableParallelism()} × ${cpus()[0]?.model ?? 'unknown CPU'}. One client alternating GET /api/v1/contacts/{id} and GET /healthz for ${SECONDS} s, idle and while 2 clients export every contact over and over and 2 search \`q=first\` (matches every contact).`,
      '',
      '| | requests | GET by id p50 | GET by id p99 | /healthz p99 |',
      '| --- | ---: | ---: | ---: | ---: |',
      `| idle | ${idle.requests} | ${ms(idle.p50)} ms | ${ms(idle.p99)} ms | ${ms(idle.healthP99)} ms |`,
      `| loaded | ${loaded.requests} | ${ms(loaded.p50)} ms | ${ms(loaded.p99)} ms ${loaded.p99 <= goal ? '✓' : '✗'} (≤ ${ms(goal)}) | ${ms(loaded.healthP99)} ms ${loaded.healthP99 <= 50 ? '✓' : '✗'} (≤ 50) |`,
      '',
      `Export alone (median of 3, after a warm-up one): ${Math.round(aloneRowsPerSecond).toLocaleString('en-US')} rows/s. Under the load: ${Math.round(exportedRowsPerSecond).toLocaleString('en-US')} rows/s exported by the two together (${exports} exports finished), ${searches} searches.`,
      '',
    ].join('\n'),
  );
} finally {
  await stop?.();
  await scratch.drop();
  rmSync(dir, { recursive: true, force: true });
}
