import './v8-flags.js';
import cluster from 'node:cluster';
import { setTimeout as sleep } from 'node:timers/promises';
import { createFirstKey } from './auth/api-keys.js';
import { runPrimary, workerServing } from './cluster.js';
import { loadConfig } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { resolveDatabase } from './db/database-url.js';
import { applyMigrations } from './db/migrate.js';
import { type RateLimitStore, RateLimiter } from './http/rate-limit.js';
import { primaryRateLimitStore } from './http/rate-limit-primary.js';
import type { EventChannel } from './events/event-channel.js';
import { startTracing } from './tracing/tracing.js';

const config = loadConfig();
const target = resolveDatabase(config.DATABASE_URL);
const log = (line: string) => process.stdout.write(`${line}\n`);
const limit = config.RATE_LIMIT_PER_MINUTE;
// The public routes' limit per client address is counted in the same store (under its own keys).
const counting = limit > 0 || config.PUBLIC_RATE_LIMIT_PER_MINUTE > 0;
const listeningLine = (url: string, detail: string) =>
  `Salesgraph listening on ${url} (${detail}): REST ${url}/api/v1, GraphQL ${url}/graphql`;

/** A connection made at start-up; one that fails (a REDIS_URL that does not answer) ends the start, saying why. */
async function atStart<T>(connecting: Promise<T>): Promise<T> {
  try {
    return await connecting;
  } catch (error) {
    process.stderr.write(`Salesgraph cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

// Redis's client is imported only when REDIS_URL is set: it is ~500 modules, a seventh of a start without it.

/** Redis when REDIS_URL is set (and there is a limit). */
const redisStore = async (): Promise<RateLimitStore | undefined> =>
  config.REDIS_URL && counting ? atStart(import('./http/rate-limit-redis.js').then(({ connectRedisStore }) => connectRedisStore({ url: config.REDIS_URL!, prefix: config.RATE_LIMIT_REDIS_PREFIX, limit }))) : undefined;

/** The live tail's Redis pub/sub when REDIS_URL is set: commits are published there, and every process follows it. */
const eventChannel = async (): Promise<EventChannel | undefined> =>
  config.REDIS_URL ? atStart(import('./events/event-channel.js').then(({ connectEventChannel }) => connectEventChannel({ url: config.REDIS_URL!, channel: config.EVENTS_REDIS_CHANNEL }))) : undefined;

/** Migrations and the first key: once per start, before any process serves. */
async function prepare(): Promise<Database> {
  if (config.MIGRATE_ON_START) await applyMigrations(target, { log });
  // With metrics on, the client times each statement (GET /metrics); off, it costs nothing.
  const database = await openDatabase(target, { timings: config.METRICS_TOKEN !== undefined });
  // First start on an empty database: a workspace and a key, printed this once.
  const created = (await database.prisma.workspace.count()) === 0 ? await createFirstKey(database.prisma, 'default', 'first key') : undefined;
  if (created) log(`Created workspace "default" and its first API key (shown only now, keep it):\n\n  ${created.key}\n`);
  return database;
}

/** Serves until SIGTERM (or SIGINT when alone), then finishes in-flight requests and exits. */
async function serve(database: Database, store: RateLimitStore | undefined, channel: EventChannel | undefined) {
  // Loaded here, not above: a cluster primary never serves, so it never builds the app.
  const { listen } = await import('./serve.js');
  const { startBackgroundWork } = await import('./jobs/background.js');
  const { composeService } = await import('./service.js');
  const { createPayments } = await import('./payments/payments.js');
  // Each serving process traces (a cluster's primary serves nothing), started before the app is built.
  const tracing = await startTracing(config);
  // The composition root: every part built here, once, and handed to the faces and the background work.
  const service = composeService(database, undefined, channel, createPayments(config));
  const running = await listen(service, config, store);
  const background = startBackgroundWork(service, config, running.metrics);
  let worker: ReturnType<typeof workerServing> | undefined;

  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    // Draining first: /readyz turns 503 and new connections are still served, so that a load
    // balancer stops sending before the process stops accepting (API.md section 5).
    running.drain();
    if (!cluster.isWorker) log(`${signal}: draining for ${config.DRAIN_DELAY_SECONDS} s, then finishing in-flight requests`);
    await sleep(config.DRAIN_DELAY_SECONDS * 1000);
    await Promise.all([running.close(), background.stop()]);
    await Promise.all([database.close(), store?.close?.(), channel?.close()]);
    // Last: the spans of the requests and attempts that finished above are sent before the exit.
    await tracing?.shutdown();
    if (worker) log(worker.stoppedLine());
    process.exit(0);
  }
  // Before the service says it listens: a SIGTERM sent the moment that line is read must
  // find the handler (it used to come after, and such a SIGTERM killed the process outright).
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // In a cluster Ctrl-C reaches every process; the primary alone acts on it, and relays SIGTERM.
  process.on('SIGINT', cluster.isWorker ? () => {} : () => void shutdown('SIGINT'));
  if (cluster.isWorker) worker = workerServing(running);
  else log(listeningLine(running.url, target.provider));
}

if (cluster.isWorker) {
  // Forked by the primary below, which has migrated: the count is Redis's or the primary's.
  const store = (await redisStore()) ?? (counting ? primaryRateLimitStore(limit) : undefined);
  const channel = await eventChannel();
  await serve(await openDatabase(target, { timings: config.METRICS_TOKEN !== undefined }), store, channel);
} else {
  // Redis first: a REDIS_URL that does not answer stops the start before anything changes.
  const store = await redisStore();
  const channel = await eventChannel();
  const database = await prepare();
  if (config.WEB_CONCURRENCY === 1) await serve(database, store, channel);
  else {
    await Promise.all([database.close(), store?.close?.(), channel?.close()]);
    await runPrimary({
      workers: config.WEB_CONCURRENCY,
      limiter: counting && !store ? new RateLimiter(limit) : undefined,
      metrics: config.METRICS_TOKEN !== undefined,
      log,
      announce: (url) => log(listeningLine(url, `${target.provider}, ${config.WEB_CONCURRENCY} processes`)),
    });
  }
}
