// npm run bench [-- --database <url>] [--duration <s>] [--rounds <n>] [--connections <n>] [--processes <n,n>] [--only <text>] [--webhooks-only] [--live-only] [--live-seconds <s>]
//
// Starts the service (compiled to build/main.js, as npm start serves it) and a bare-Prisma server (bare-prisma-server.ts) as
// separate processes on a fresh seeded database, loads both from this process with
// autocannon, and prints a Markdown table (progress goes to stderr). Never part of npm test.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { resolveDatabase } from '../../src/db/database-url.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { scratchDatabase as scratchPostgres } from '../../test/support/scratch-database.js';
import { type RequestShape, type Sample, measure, stopLoad } from './load.js';
import { type ServerProcess, buildService, startServer } from './processes.js';
import { SEED, seed } from './seed.js';
import { type LiveFigures, LIVE_SUBSCRIBERS, LIVE_WRITES_PER_SECOND, benchLive, liveSection, problems as liveProblems } from './live.js';
import { type WebhookFigures, benchWebhooks } from './webhooks.js';

const USAGE = `npm run bench -- [--database <url>] [--duration <seconds>] [--rounds <n>] [--connections <n>] [--processes <n,n>]
  --database     a postgresql:// admin URL (a database salesgraph_bench_... is made in it and dropped
                 afterwards), or file:<path> for a new SQLite file kept afterwards;
                 default: a SQLite file in a temporary folder
  --duration     seconds per measurement (default 8)
  --rounds       rounds of every measurement, medians reported (default 3)
  --connections  concurrent connections of the load (default 50)
  --processes    the service's process counts (WEB_CONCURRENCY), comma-separated (default 1): every
                 measurement runs at the first; REST GET by id runs at each (e.g. 1,2)
  --only         only the request rows whose label holds this text (e.g. "products/{id}"), no
                 webhook or live rows: for A/B runs and profiles of one route
  --webhooks-only  only the webhook rows (the write with and without an endpoint, the delay to the
                 first attempt at 200 writes/s, the drain), printed as their table
  --live-only    only the live-updates rows (100 subscribers, REST streams and GraphQL subscriptions,
                 while contacts are written at 200/s: the delay from a write's answer to each
                 subscriber), printed as their table
  --live-seconds seconds of the live rows' paced writes (default 10)`;

const progress = (line: string) => process.stderr.write(`${line}\n`);

function options() {
  const { values } = parseArgs({
    options: {
      database: { type: 'string' },
      duration: { type: 'string', default: '8' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      processes: { type: 'string', default: '1' },
      only: { type: 'string' },
      'webhooks-only': { type: 'boolean', default: false },
      'live-only': { type: 'boolean', default: false },
      'live-seconds': { type: 'string', default: '10' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const duration = Number(values.duration);
  const rounds = Number(values.rounds);
  const connections = Number(values.connections);
  if (!(duration > 0)) throw new Error(`--duration must be a positive number of seconds\n${USAGE}`);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number from 1\n${USAGE}`);
  if (!Number.isInteger(connections) || connections < 1) throw new Error(`--connections must be a whole number from 1\n${USAGE}`);
  const liveSeconds = Number(values['live-seconds']);
  if (!(liveSeconds > 0)) throw new Error(`--live-seconds must be a positive number of seconds\n${USAGE}`);
  if ([values['webhooks-only'], values['live-only'], values.only !== undefined].filter(Boolean).length > 1) {
    throw new Error(`--only, --webhooks-only and --live-only: one of them at most\n${USAGE}`);
  }
  const processes = [...new Set(values.processes.split(',').map((n) => Number(n.trim())))];
  if (!processes.every((n) => Number.isInteger(n) && n >= 1)) throw new Error(`--processes must list whole numbers from 1\n${USAGE}`);
  return { database: values.database, duration, rounds, connections, processes, only: values.only, webhooksOnly: values['webhooks-only'], liveOnly: values['live-only'], liveSeconds };
}

interface Scratch {
  url: string;
  provider: 'sqlite' | 'postgresql';
  describe: string;
  drop(): Promise<void>;
  /** What can be undone synchronously on exit (the temp folder). */
  dropNow(): void;
  /** What a forced exit leaves behind. */
  leftover?: string;
}

/** A fresh database: a SQLite file in a temp folder, or a scratch database on a PostgreSQL server (the tests' own helper). */
async function scratchDatabase(given: string | undefined): Promise<Scratch> {
  if (given === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'salesgraph-bench-'));
    const remove = () => rmSync(dir, { recursive: true, force: true });
    return { url: `file:${join(dir, 'bench.db')}`, provider: 'sqlite', describe: 'SQLite (temporary file)', drop: async () => remove(), dropNow: remove };
  }
  const target = resolveDatabase(given);
  if (target.provider === 'sqlite') {
    if (existsSync(target.file)) throw new Error(`${target.file} exists: the benchmark wants a new SQLite file`);
    return { url: given, provider: 'sqlite', describe: `SQLite (${target.file}, kept)`, drop: async () => {}, dropNow: () => {} };
  }
  const created = await scratchPostgres('postgresql', given, 'bench');
  const url = new URL(created.url);
  const name = url.pathname.slice(1);
  let dropped = false;
  return {
    url: created.url,
    provider: 'postgresql',
    describe: `PostgreSQL (scratch database ${name} on ${url.host})`,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await created.drop();
      progress(`dropped database ${name}`);
    },
    dropNow: () => {},
    leftover: `the database ${name} on ${url.host}`,
  };
}

// ---- what is measured --------------------------------------------------------------

const PER_PAGE = 15;
const DEALS_PER_PAGE = 100;
/** Contacts per request of the batch write row (the most a batch takes). */
const BATCH_SIZE = 100;
const SINGLE_WRITE = 'REST `POST /api/v1/contacts` (write)';
const BATCH_WRITE = `REST \`POST /api/v1/contacts/batch\` (${BATCH_SIZE} contacts)`;
const PRODUCT_FIELDS = 'id name sku type description price cost currency unit taxRate isActive createdAt updatedAt';
const DEALS_QUERY = `query ($page: Int) { deals(page: $page, perPage: ${DEALS_PER_PAGE}) { data { id name stage { name } user { name } contacts { email } products { name } } } }`;

const cycle = <T>(items: T[]) => {
  let i = 0;
  return () => items[i++ % items.length]!;
};
const pages = (count: number, perPage: number) => Array.from({ length: Math.ceil(count / perPage) }, (_, i) => i + 1);

interface Measurement {
  label: string;
  shape: RequestShape;
  /** The bare server's measurement shown beside this one, by label. */
  bare?: string;
  /** The service's process count (WEB_CONCURRENCY) this runs at; the bare server's have none. */
  processes?: number;
}

const processesLabel = (n: number) => `${n} process${n === 1 ? '' : 'es'}`;

/** Every measurement at the first process count; REST GET by id at each count too, labelled with it. */
function measurements(productIds: string[], runId: string, processCounts: number[]): { service: Measurement[]; bare: Measurement[] } {
  const productId = cycle(productIds);
  const productPage = cycle(pages(productIds.length, PER_PAGE));
  const dealPage = cycle(pages(SEED.deals, DEALS_PER_PAGE));
  let contact = 0;
  const byId: RequestShape = { method: 'GET', path: () => `/api/v1/products/${productId()}` };
  const list: RequestShape = { method: 'GET', path: () => `/api/v1/products?page=${productPage()}` };
  const BY_ID = 'REST `GET /api/v1/products/{id}`';
  const LIST = 'REST `GET /api/v1/products?page=N`';
  const [first, ...others] = processCounts as [number, ...number[]];
  const byIdAt = (n: number): Measurement => ({
    label: processCounts.length > 1 || n !== 1 ? `${BY_ID}, ${processesLabel(n)}` : BY_ID,
    shape: byId,
    bare: BY_ID,
    processes: n,
  });
  return {
    service: ([
      byIdAt(first),
      ...others.map(byIdAt),
      { label: LIST, shape: list, bare: LIST },
      {
        label: 'GraphQL `product(id)`',
        bare: BY_ID,
        shape: {
          method: 'POST',
          graphql: true,
          path: () => '/graphql',
          body: () => JSON.stringify({ query: `query ($id: ID!) { product(id: $id) { ${PRODUCT_FIELDS} } }`, variables: { id: productId() } }),
        },
      },
      {
        label: 'GraphQL `products(page: N)`',
        bare: LIST,
        shape: {
          method: 'POST',
          graphql: true,
          path: () => '/graphql',
          body: () => JSON.stringify({ query: `query ($page: Int) { products(page: $page) { total data { ${PRODUCT_FIELDS} } } }`, variables: { page: productPage() } }),
        },
      },
      {
        label: `GraphQL \`deals(perPage: ${DEALS_PER_PAGE})\` with stage, user, contacts, products`,
        shape: { method: 'POST', graphql: true, path: () => '/graphql', body: () => JSON.stringify({ query: DEALS_QUERY, variables: { page: dealPage() } }) },
      },
      {
        label: SINGLE_WRITE,
        shape: {
          method: 'POST',
          path: () => '/api/v1/contacts',
          body: () => JSON.stringify({ first_name: 'Bench', last_name: 'Load', email: `bench-${runId}-${(contact += 1)}@bench.example` }),
        },
      },
      {
        label: BATCH_WRITE,
        shape: {
          method: 'POST',
          path: () => '/api/v1/contacts/batch',
          body: () =>
            JSON.stringify({ inputs: Array.from({ length: BATCH_SIZE }, () => ({ first_name: 'Bench', last_name: 'Load', email: `bench-${runId}-${(contact += 1)}@bench.example` })) }),
        },
      },
    ] satisfies Measurement[]).map((m) => ({ processes: first, ...m })),
    bare: [
      { label: BY_ID, shape: byId },
      { label: LIST, shape: list },
    ],
  };
}

// ---- sanity checks before the load -------------------------------------------------

async function call(base: string, key: string, shape: RequestShape): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${shape.path()}`, {
    method: shape.method,
    headers: { 'X-Api-Key': key, ...(shape.body ? { 'Content-Type': 'application/json' } : {}) },
    body: shape.body?.(),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // left as text
  }
  return { status: response.status, body };
}

/** One request of every kind answers as expected, and the bare server answers what the service does (at each process count). */
async function check(services: ServerProcess[], bare: ServerProcess, key: string, productIds: string[]) {
  const service = services[0]!;
  const fail = (what: string, got: unknown) => {
    throw new Error(`sanity check failed: ${what}: ${JSON.stringify(got).slice(0, 500)}`);
  };
  const id = productIds[1]!;
  const one: RequestShape = { method: 'GET', path: () => `/api/v1/products/${id}` };
  const page: RequestShape = { method: 'GET', path: () => '/api/v1/products?page=2' };
  for (const shape of [one, page]) {
    for (const s of services) {
      const [a, b] = await Promise.all([call(s.url, key, shape), call(bare.url, key, shape)]);
      if (a.status !== 200) fail(`${s.label} GET ${shape.path()}`, a);
      if (b.status !== 200) fail(`bare GET ${shape.path()}`, b);
      if (!isDeepStrictEqual(a.body, b.body)) {
        progress(`warning: the bare server's answer to GET ${shape.path()} differs from the ${s.label}'s:\n  service ${JSON.stringify(a.body).slice(0, 400)}\n  bare    ${JSON.stringify(b.body).slice(0, 400)}`);
      }
    }
  }
  const product = await call(service.url, key, {
    method: 'POST',
    path: () => '/graphql',
    body: () => JSON.stringify({ query: `query ($id: ID!) { product(id: $id) { ${PRODUCT_FIELDS} } }`, variables: { id } }),
  });
  if (product.status !== 200 || product.body?.data?.product?.id !== id) fail('GraphQL product(id)', product);
  const deals = await call(service.url, key, { method: 'POST', path: () => '/graphql', body: () => JSON.stringify({ query: DEALS_QUERY, variables: { page: 1 } }) });
  const data = deals.body?.data?.deals?.data as { stage?: unknown; user?: unknown; contacts: unknown[]; products: unknown[] }[] | undefined;
  if (deals.status !== 200 || deals.body?.errors || data?.length !== DEALS_PER_PAGE) fail('GraphQL deals', deals);
  if (!data!.every((d) => d.stage && d.user && d.contacts.length === 2 && d.products.length === 2)) fail('GraphQL deals relations', data![0]);
  const batch = await call(service.url, key, {
    method: 'POST',
    path: () => '/api/v1/contacts/batch',
    body: () => JSON.stringify({ inputs: [1, 2].map((i) => ({ first_name: 'Check', email: `check-${i}-${Date.now()}@bench.example` })) }),
  });
  if (batch.status !== 201 || batch.body?.data?.length !== 2) fail('POST /contacts/batch', batch);
}

// ---- report ------------------------------------------------------------------------

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  cpuMsPerRequest: number;
  errors: number;
  requests: number;
  closed: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const medians = (samples: Sample[]): Figures => ({
  perSecond: median(samples.map((s) => s.perSecond)),
  p50: median(samples.map((s) => s.p50)),
  p99: median(samples.map((s) => s.p99)),
  cpuMsPerRequest: median(samples.map((s) => s.cpuMsPerRequest)),
  errors: samples.reduce((n, s) => n + s.errors, 0),
  requests: samples.reduce((n, s) => n + s.requests, 0),
  closed: samples.reduce((n, s) => n + s.closed, 0),
});
const rate = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const cpu = (n: number) => (n >= 10 ? n.toFixed(1) : n >= 1 ? n.toFixed(2) : n.toFixed(3));
const times = (n: number) => `${n.toFixed(2)}×`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

function table(rows: { label: string; service: Figures; bare?: Figures }[]): string {
  const head = [
    'measurement',
    'service req/s',
    'p50 ms',
    'p99 ms',
    'CPU ms/req',
    'bare req/s',
    'bare p50 ms',
    'bare p99 ms',
    'bare CPU ms/req',
    'req/s service/bare',
    'CPU/req service/bare',
    'errors',
  ];
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`];
  for (const { label, service: s, bare: b } of rows) {
    const cells = [label, rate(s.perSecond), ms(s.p50), ms(s.p99), cpu(s.cpuMsPerRequest)];
    cells.push(...(b ? [rate(b.perSecond), ms(b.p50), ms(b.p99), cpu(b.cpuMsPerRequest)] : ['–', '–', '–', '–']));
    cells.push(b && b.perSecond > 0 ? times(s.perSecond / b.perSecond) : '–', b && b.cpuMsPerRequest > 0 ? times(s.cpuMsPerRequest / b.cpuMsPerRequest) : '–');
    cells.push(b ? `${s.errors} / ${b.errors}` : String(s.errors));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** Answers that ended their connection: each following request on it pays for a new TCP connection. */
function closedNote(rows: { label: string; service: Figures; bare?: Figures }[]): string[] {
  const closing = rows.filter((r) => r.service.closed > 0);
  if (closing.length === 0) return [];
  const list = closing.map((r) => `${r.label} (${r.service.closed.toLocaleString('en-US')} of ${r.service.requests.toLocaleString('en-US')})`).join(', ');
  return [`The service answered with \`Connection: close\`, so the load reconnected, in: ${list}.`, ''];
}

/** The batch row against the single write, in records written per second (API.md section 8 asks for at least 10×). */
function batchSection(rows: { label: string; service: Figures }[]): string[] {
  const single = rows.find((r) => r.label === SINGLE_WRITE)?.service;
  const batch = rows.find((r) => r.label === BATCH_WRITE)?.service;
  if (!single || !batch) return [];
  const records = batch.perSecond * BATCH_SIZE;
  return [
    '### Batch writes',
    '',
    '| measurement | contacts written/s |',
    '| --- | ---: |',
    `| ${SINGLE_WRITE}: one contact per request | ${rate(single.perSecond)} |`,
    `| ${BATCH_WRITE} | ${rate(records)} |`,
    `| ratio batch / single | ${times(records / single.perSecond)} |`,
    '',
    `Both rows of the table above, same connections and duration; a batch answers with its ${BATCH_SIZE} contacts and records an event for each.`,
    '',
  ];
}

function webhookSection(h: WebhookFigures): string[] {
  const without = medians(h.withoutEndpoint);
  const withOne = medians(h.withEndpoint);
  // Each round measures both, one right after the other: their ratio is untouched by the machine drifting
  // between rounds, which the ratio of two medians is not (rounds of one kind differ by up to 25%).
  const pairs = h.withEndpoint.map((w, i) => [w, h.withoutEndpoint[i]!] as const);
  const pairedRatio = (ratio: (w: Sample, o: Sample) => number) => median(pairs.map(([w, o]) => ratio(w, o)));
  const throughputRatios = pairs.map(([w, o]) => w.perSecond / o.perSecond);
  return [
    '### Webhooks',
    '',
    '| measurement | figure |',
    '| --- | ---: |',
    `| REST \`POST /api/v1/contacts\`, no endpoint subscribed | ${rate(without.perSecond)} req/s (p99 ${ms(without.p99)} ms), ${cpu(without.cpuMsPerRequest)} ms service CPU/req |`,
    `| the same, one endpoint subscribed (deliveries sent meanwhile) | ${rate(withOne.perSecond)} req/s (p99 ${ms(withOne.p99)} ms), ${cpu(withOne.cpuMsPerRequest)} ms service CPU/req (the deliveries' included) |`,
    `| ratio with / without: throughput; service CPU per write, inverted (medians of each round's pair; the throughput's range) | ${times(pairedRatio((w, o) => w.perSecond / o.perSecond))}; ${times(pairedRatio((w, o) => o.cpuMsPerRequest / w.cpuMsPerRequest))} (${times(Math.min(...throughputRatios))}-${times(Math.max(...throughputRatios))}) |`,
    `| answer of a write to its first attempt, ${h.latency.writes} writes sent at 200/s (answered at ${rate(h.latency.perSecond)}/s): p50 / p95 / max | ${ms(h.latency.p50)} / ${ms(h.latency.p95)} / ${ms(h.latency.max)} ms |`,
    `| a backlog of ${h.drain.deliveries} deliveries drained to a receiver that answers at once | ${rate(h.drain.perSecond)} deliveries/s (${h.drain.seconds.toFixed(2)} s) |`,
    `| the answer-to-first-attempt run again, beside a second endpoint that never answers (answered at ${rate(h.besideStalled.perSecond)}/s): p50 / p95 / max at the one that answers | ${ms(h.besideStalled.p50)} / ${ms(h.besideStalled.p95)} / ${ms(h.besideStalled.max)} ms |`,
    '',
    'The write rows alternate, after a warm-up of each (the endpoint made inactive or active; without then with, then with then without), same connections and duration as above. The receiver runs in a process of its own (not the load generator), on 127.0.0.1.',
    '',
  ];
}

// ---- the run -----------------------------------------------------------------------

const servers: ServerProcess[] = [];
let scratch: Scratch | undefined;
let cleaning: Promise<void> | undefined;
let interrupted = false;

/** Stops both servers, then drops the scratch database (or removes the temp folder); runs once. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all(servers.map((s) => s.stop().catch(() => s.killNow())));
    await scratch?.drop().catch((error: Error) => progress(`could not drop the scratch database: ${error.message}`));
  })();
  return cleaning;
}

// A Ctrl-C reaches this process twice, straight from the terminal and relayed by tsx's
// launcher: only a signal well after the first one means "stop waiting".
let firstSignalAt = 0;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) {
      if (performance.now() - firstSignalAt < 2000) return;
      for (const s of servers) s.killNow();
      scratch?.dropNow();
      if (scratch?.leftover) progress(`forced exit: ${scratch.leftover} may remain`);
      process.exit(130);
    }
    interrupted = true;
    firstSignalAt = performance.now();
    progress(`\n${signal}: stopping the load and the servers, removing the scratch database (${signal} again to force)`);
    stopLoad();
    void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}
process.on('exit', () => {
  for (const s of servers) s.killNow();
  scratch?.dropNow();
});

async function main(): Promise<number> {
  const opts = options();
  scratch = await scratchDatabase(opts.database);
  const target = resolveDatabase(scratch.url);
  progress(`database: ${scratch.describe}`);
  await applyMigrations(target);
  const started = performance.now();
  const seeded = await seed(target);
  progress(`seeded ${SEED.products} products, ${SEED.users} users, 1 pipeline of ${SEED.stages} stages, ${SEED.contacts} contacts, ${SEED.deals} deals (2 contacts, 2 products each) in ${Math.round(performance.now() - started)} ms`);

  // One service per process count, each as it starts in production (compiled; WEB_CONCURRENCY > 1: a cluster).
  const serviceScript = buildService();
  const services = new Map<number, ServerProcess>();
  const serviceEnv = (n: number) => ({ DATABASE_URL: scratch!.url, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn', WEB_CONCURRENCY: String(n), WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  for (const n of opts.processes) {
    // Private networks allowed: the webhook rows deliver to a receiver on 127.0.0.1.
    const env = serviceEnv(n);
    const service = await startServer(n === 1 ? 'service' : `service×${n}`, serviceScript, env);
    servers.push(service);
    services.set(n, service);
  }
  const serviceAt = (m: Measurement) => services.get(m.processes ?? opts.processes[0]!)!;
  const bare = await startServer('bare', 'scripts/bench/bare-prisma-server.ts', {
    DATABASE_URL: scratch.url,
    BENCH_API_KEY: seeded.key,
    BENCH_WORKSPACE_ID: seeded.workspaceId,
  });
  servers.push(bare);
  for (const [n, service] of services) progress(`service at ${processesLabel(n)} on ${service.url} (pid ${service.pid})`);
  progress(`bare-Prisma server on ${bare.url} (pid ${bare.pid})`);
  await check([...services.values()], bare, seeded.key, seeded.productIds);

  const runId = randomBytes(4).toString('hex');
  const plan = measurements(seeded.productIds, runId, opts.processes);
  if (opts.only !== undefined) {
    plan.service = plan.service.filter((m) => m.label.includes(opts.only!));
    if (plan.service.length === 0) throw new Error(`--only ${opts.only}: no row's label holds it`);
    plan.bare = plan.bare.filter((b) => plan.service.some((m) => m.bare === b.label));
  }
  const load = { connections: opts.connections, seconds: opts.duration };
  const samples = new Map<string, Sample[]>();
  const problems: string[] = [];
  const record = (key: string, who: string, sample: Sample) => {
    samples.set(key, [...(samples.get(key) ?? []), sample]);
    if (sample.problems.length) problems.push(`${who}: ${sample.problems.join('; ')}`);
  };
  const bareFor = (name: string) => plan.bare.find((m) => m.label === name)!;

  // The live rows run on a service of one process (their second process is a second service).
  const live = async (): Promise<LiveFigures | undefined> => {
    let first = services.get(1);
    if (!first) {
      first = await startServer('service', serviceScript, serviceEnv(1));
      servers.push(first);
    }
    progress(`[live] ${LIVE_SUBSCRIBERS.total} subscribers, ${LIVE_WRITES_PER_SECOND} writes/s for ${opts.liveSeconds} s`);
    return benchLive(first, serviceEnv(1), serviceScript, target, 'bench', opts.liveSeconds, progress, () => interrupted, (s) => servers.push(s));
  };
  if (opts.liveOnly) {
    const figures = await live();
    if (!figures) return 130;
    process.stdout.write(`${liveSection(figures, scratch.describe).join('\n')}\n`);
    const failures = figures.runs.flatMap(liveProblems);
    if (failures.length) progress(`\nlive updates FAILED:\n${failures.map((p) => `  ${p}`).join('\n')}`);
    return failures.length ? 1 : 0;
  }

  if (opts.webhooksOnly) {
    const hooks = await benchWebhooks(services.get(opts.processes[0]!)!, seeded.key, { ...load, rounds: opts.rounds }, progress, () => interrupted);
    if (!hooks) return 130;
    process.stdout.write(`${webhookSection(hooks).join('\n')}\n`);
    return 0;
  }

  // Warm-up (JIT, statement caches, connection pools): one second of each, not recorded.
  progress('warming up');
  for (const m of plan.service) {
    if (interrupted) return 130;
    await measure(serviceAt(m), seeded.key, m.shape, { ...load, seconds: Math.min(1, opts.duration) });
  }
  for (const m of plan.bare) {
    if (interrupted) return 130;
    await measure(bare, seeded.key, m.shape, { ...load, seconds: Math.min(1, opts.duration) });
  }

  for (let round = 1; round <= opts.rounds; round += 1) {
    const measured = new Set<string>();
    for (const m of plan.service) {
      const steps: [ServerProcess, Measurement, string][] = [[serviceAt(m), m, `service ${m.label}`]];
      if (m.bare && !measured.has(m.bare)) {
        measured.add(m.bare);
        steps.push([bare, bareFor(m.bare), `bare ${m.bare}`]);
      }
      for (const [server, measurement, key] of steps) {
        if (interrupted) return 130;
        const sample = await measure(server, seeded.key, measurement.shape, load);
        record(key, `round ${round}, ${server.label} ${measurement.label}`, sample);
        progress(
          `[round ${round}/${opts.rounds}] ${server.label.padEnd(9)} ${measurement.label}: ${rate(sample.perSecond)} req/s, p50 ${ms(sample.p50)} ms, p99 ${ms(sample.p99)} ms, ${cpu(sample.cpuMsPerRequest)} ms CPU/req (${sample.requests} answers in ${sample.seconds} s${sample.closed ? `, ${sample.closed} with Connection: close` : ''})${sample.errors ? `, ${sample.errors} errors` : ''}`,
        );
      }
    }
  }
  const rss = { services: [...services].map(([n, service]) => [n, service.rssBytes()] as const), bare: bare.rssBytes() };
  const everything = opts.only === undefined;
  const hooks = everything ? await benchWebhooks(services.get(opts.processes[0]!)!, seeded.key, { ...load, rounds: opts.rounds }, progress, () => interrupted) : undefined;
  if (everything && !hooks) return 130;
  for (const s of hooks ? [...hooks.withoutEndpoint, ...hooks.withEndpoint] : []) if (s.problems.length) problems.push(`webhooks: ${s.problems.join('; ')}`);
  const liveFigures = everything ? await live() : undefined;
  if (everything && !liveFigures) return 130;
  problems.push(...(liveFigures?.runs.flatMap(liveProblems) ?? []).map((p) => `live updates: ${p}`));

  const rows = plan.service.map((m) => ({
    label: m.label,
    service: medians(samples.get(`service ${m.label}`)!),
    bare: m.bare ? medians(samples.get(`bare ${m.bare}`)!) : undefined,
  }));
  const out = [
    `## Salesgraph benchmark`,
    '',
    `${scratch.describe}; the service at ${opts.processes.map(processesLabel).join(' and ')} (\`WEB_CONCURRENCY\`); ${opts.connections} connections, ${opts.duration} s per measurement, ${opts.rounds} round(s), medians; Node ${process.version}, ${availableParallelism()} CPUs. ` +
      `Seed: ${SEED.products} products, ${SEED.users} users, ${SEED.stages} stages, ${SEED.contacts} contacts, ${SEED.deals} deals with 2 contacts and 2 products each.`,
    '',
    table(rows),
    '',
    'CPU ms/req: user + system CPU time of the server process (/proc/<pid>/stat; a cluster primary and its workers added up) over the measurement, divided by the requests answered. ' +
      "Bare: node:http + the project's Prisma client, key compared in memory; its figures beside GraphQL `product(id)` are its `GET /api/v1/products/{id}`. " +
      'Errors: non-2xx answers, socket errors and GraphQL answers with errors, over all rounds (service / bare). ' +
      "Latency: from sending a request to its whole answer, as seen by the load generator, leaving out each connection's first request (they all open at once and queue to be accepted).",
    '',
    ...closedNote(rows),
    '| process | VmRSS after the load |',
    '| --- | ---: |',
    ...rss.services.map(([n, bytes]) => `| service (\`build/main.js\`, ${processesLabel(n)}${n > 1 ? ', added up' : ''}) | ${mb(bytes)} |`),
    `| bare-Prisma server (through tsx) | ${mb(rss.bare)} |`,
    '',
    ...batchSection(rows),
    ...(hooks ? webhookSection(hooks) : []),
    ...(liveFigures ? liveSection(liveFigures, scratch.describe) : []),
  ];
  process.stdout.write(out.join('\n'));
  if (problems.length) {
    progress(`\nerrors during the load:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    return 1;
  }
  return 0;
}

let code: number;
try {
  code = await main();
} catch (error) {
  code = interrupted ? 130 : 1;
  if (!interrupted) progress(`bench failed: ${(error as Error).stack ?? error}`);
}
await cleanup();
process.exit(code);
