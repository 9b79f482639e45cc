// npm run bench:metrics [-- --duration <s>] [--rounds <n>] [--connections <n>]
//
// The cost of GET /metrics's measuring: the service (build/main.js) twice on one seeded
// SQLite file, once with METRICS_TOKEN set and once without, loaded in turn with the
// same REST GET by id; prints the server's CPU milliseconds per request of each (medians
// over the rounds) and their ratio. Never part of npm test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveDatabase } from '../../src/db/database-url.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { type Sample, measure } from './load.js';
import { buildService, startServer } from './processes.js';
import { seed } from './seed.js';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '8' }, rounds: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' } } });
const [seconds, rounds, connections] = [Number(values.duration), Number(values.rounds), Number(values.connections)];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'salesgraph-metrics-bench-'));
const url = `file:${join(dir, 'bench.db')}`;
const target = resolveDatabase(url);
await applyMigrations(target);
const { key, productIds } = await seed(target);
const script = buildService();
const env = { DATABASE_URL: url, MIGRATE_ON_START: 'false', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn', WEBHOOKS_DELIVER: 'false' };
const servers = [await startServer('without', script, env), await startServer('with', script, { ...env, METRICS_TOKEN: 'bench-metrics-token-0123456789' })];
let n = 0;
const shape = { method: 'GET' as const, path: () => `/api/v1/products/${productIds[n++ % productIds.length]}` };
try {
  const samples: Sample[][] = [[], []];
  // Warm-up, then rounds in turn so that both see the same machine.
  for (const server of servers) await measure(server, key, shape, { connections, seconds: 2 });
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, server] of servers.entries()) {
      const sample = await measure(server, key, shape, { connections, seconds });
      if (sample.errors > 0) throw new Error(`${server.label}: ${sample.problems.join('; ')}`);
      samples[i]!.push(sample);
      process.stderr.write(`round ${round + 1} ${server.label}: ${sample.cpuMsPerRequest.toFixed(4)} ms CPU/request, ${Math.round(sample.perSecond)} req/s\n`);
    }
  }
  const [without, withMetrics] = samples.map((s) => median(s.map((x) => x.cpuMsPerRequest)));
  const [rpsWithout, rpsWith] = samples.map((s) => median(s.map((x) => x.perSecond)));
  console.log('| METRICS_TOKEN | CPU ms / request (median) | requests/s (median) |');
  console.log('| --- | --- | --- |');
  console.log(`| unset | ${without!.toFixed(4)} | ${Math.round(rpsWithout!)} |`);
  console.log(`| set | ${withMetrics!.toFixed(4)} | ${Math.round(rpsWith!)} |`);
  console.log(`\nWith metrics: ${((withMetrics! / without! - 1) * 100).toFixed(1)}% CPU per request (${rounds} rounds of ${seconds} s, ${connections} connections, GET /api/v1/products/{id}).`);
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
}
