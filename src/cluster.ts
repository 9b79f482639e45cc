import cluster, { type Worker } from 'node:cluster';
import { answerMetricsAsks } from './http/metrics-primary.js';
import { answerRateLimitAsks } from './http/rate-limit-primary.js';
import type { RateLimiter } from './http/rate-limit.js';
import type { RunningServer } from './serve.js';

// A worker's word to the primary that it serves, with its URL (all share the one port).
interface Listening {
  workerListening: string;
}
const isListening = (message: unknown): message is Listening => typeof (message as Listening | null)?.workerListening === 'string';

export interface PrimaryOptions {
  workers: number;
  /** Set when the primary keeps the rate-limit count for every worker (no Redis). */
  limiter?: RateLimiter;
  /** METRICS_TOKEN is set: the worker that gets a scrape asks here for the sum of every worker's figures. */
  metrics?: boolean;
  log(line: string): void;
  /** Called once, when every first worker serves. */
  announce(url: string): void;
}

/**
 * The cluster primary: forks `workers` processes that all listen on the one port (the
 * primary holds the socket and hands connections round), replaces a worker that dies
 * once the service is up, and on SIGTERM or SIGINT has each finish its in-flight
 * requests. A worker that dies while the service starts means none can: the primary stops.
 */
export async function runPrimary({ workers, limiter, metrics, log, announce }: PrimaryOptions): Promise<void> {
  const live = new Set<Worker>();
  const serving = new Set<Worker>();
  let announced = false;
  let stopping = false;
  let exitCode = 0;
  // prom-client is loaded only with metrics on.
  const aggregator = metrics ? new (await import('prom-client')).AggregatorRegistry() : undefined;

  function fork() {
    const worker = cluster.fork();
    live.add(worker);
    if (limiter) answerRateLimitAsks(worker, limiter);
    if (aggregator) answerMetricsAsks(worker, aggregator);
    worker.on('message', (message) => {
      if (!isListening(message)) return;
      serving.add(worker);
      if (!announced && serving.size === workers) {
        announced = true;
        announce(message.workerListening);
      }
    });
    worker.on('exit', (code, signal) => onExit(worker, code ?? signal));
  }

  function onExit(worker: Worker, how: number | string) {
    live.delete(worker);
    serving.delete(worker);
    if (stopping) {
      if (live.size === 0) process.exit(exitCode);
    } else if (!announced) {
      process.stderr.write(`Salesgraph worker ${worker.process.pid} exited (${how}) while starting: stopping\n`);
      stop(1);
    } else {
      process.stderr.write(`Salesgraph worker ${worker.process.pid} exited unexpectedly (${how}): starting another\n`);
      fork();
    }
  }

  /** Each worker gets SIGTERM and finishes its in-flight requests; the primary exits when all have. */
  function stop(code: number) {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    if (live.size === 0) process.exit(exitCode);
    for (const worker of live) worker.process.kill('SIGTERM');
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (!stopping) log(`${signal}: stopping ${live.size} workers, each finishing its in-flight requests`);
      stop(0);
    });
  }
  for (let i = 0; i < workers; i += 1) fork();
}

/**
 * Worker side, once it listens: tells the primary, and counts the requests it serves
 * for its last log line (which also shows how the load was shared).
 */
export function workerServing(running: RunningServer): { stoppedLine(): string } {
  let served = 0;
  running.server.on('request', () => (served += 1));
  const listening: Listening = { workerListening: running.url };
  process.send!(listening);
  return { stoppedLine: () => `worker ${process.pid} stopped after serving ${served} requests` };
}
