// npm run bench:metrics | bench:tracing [-- --duration <s>] [--rounds <n>] [--connections <n>]
//
// The cost of a setting that observes every request: the service (build/main.js) twice on
// one seeded SQLite file, once with the setting and once without, loaded in turn with the
// same REST GET by id; prints the server's CPU milliseconds per request of each (medians
// over the rounds) and their ratio. `--setting metrics`: METRICS_TOKEN; `--setting
// tracing`: OTEL_EXPORTER_OTLP_ENDPOINT, exporting to a local collector that reads and
// drops every batch. Never part of npm test.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveDatabase } from '../../src/db/database-url.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { type Sample, measure } from './load.js';
import { buildService, startServer } from './processes.js';
import { seed } from './seed.js';

const { values } = parseArgs({ options: { setting: { type: 'string', default: 'metrics' }, duration: { type: 'string', default: '8' }, rounds: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' } } });
const [seconds, rounds, connections] = [Number(values.duration), Number(values.rounds), Number(values.connections)];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'salesgraph-setting-bench-'));
const url = `file:${join(dir, 'bench.db')}`;
const target = resolveDatabase(url);
await applyMigrations(target);
const { key, productIds } = await seed(target);
const script = buildService();
const env = { DATABASE_URL: url, MIGRATE_ON_START: 'false', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn', WEBHOOKS_DELIVER: 'false' };
/** A collector that takes every export and keeps nothing: the service's side of exporting is what is measured. */
async function startCollector(): Promise<{ url: string; received: () => string; close(): void }> {
  let exports = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    exports += 1;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length)).on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received: () => `${exports} exports, ${(bytes / 1e6).toFixed(1)} MB`, close: () => server.close() };
}

const collector = values.setting === 'tracing' ? await startCollector() : undefined;
const settings: Record<string, { variable: string; env: Record<string, string> }> = {
  metrics: { variable: 'METRICS_TOKEN', env: { METRICS_TOKEN: 'bench-metrics-token-0123456789' } },
  // A queue and batches large enough that no span is dropped: every span is built, batched and sent.
  tracing: { variable: 'OTEL_EXPORTER_OTLP_ENDPOINT', env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector?.url ?? '', OTEL_BSP_MAX_QUEUE_SIZE: '100000', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2048', OTEL_BSP_SCHEDULE_DELAY: '500' } },
};
const setting = settings[values.setting!];
if (!setting) throw new Error(`--setting: one of ${Object.keys(settings).join(', ')}`);
const servers = [await startServer('without', script, env), await startServer('with', script, { ...env, ...setting.env })];
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
  const [without, withSetting] = samples.map((s) => median(s.map((x) => x.cpuMsPerRequest)));
  const [rpsWithout, rpsWith] = samples.map((s) => median(s.map((x) => x.perSecond)));
  console.log(`| ${setting.variable} | CPU ms / request (median) | requests/s (median) |`);
  console.log('| --- | --- | --- |');
  console.log(`| unset | ${without!.toFixed(4)} | ${Math.round(rpsWithout!)} |`);
  console.log(`| set | ${withSetting!.toFixed(4)} | ${Math.round(rpsWith!)} |`);
  console.log(`\nWith ${values.setting}: ${((withSetting! / without! - 1) * 100).toFixed(1)}% CPU per request (${rounds} rounds of ${seconds} s, ${connections} connections, GET /api/v1/products/{id}).`);
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  if (collector) console.log(`The collector received ${collector.received()}.`);
  collector?.close();
  rmSync(dir, { recursive: true, force: true });
}
