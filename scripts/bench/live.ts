// The live-updates rows of `npm run bench` (issue 32, API.md section 10: "delivered within
// 500 ms of the commit (p95)"): 100 subscribers to one workspace (most over
// `GET /api/v1/events/stream`, some over the GraphQL subscription) while this process writes
// contacts at 200/s; for every delivery, the time from the write's answer to the subscriber.
// The subscribers run in a process of their own (scripts/bench/subscribers.ts). Run once with
// the writes and the subscribers on the same service process, and once with the writes sent
// to a second service process on the same database (the subscribers' process only learns of
// them through the database: NOTIFY on PostgreSQL, its poll on SQLite).
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createKey } from '../../src/auth/api-keys.js';
import { openDatabase } from '../../src/db/client.js';
import type { DatabaseTarget } from '../../src/db/database-url.js';
import { type ServerProcess, startServer } from './processes.js';
import type { DeliveryFigures, SubscribersReply, SubscribersRequest } from './subscribers.js';

export const LIVE_WRITES_PER_SECOND = 200;
/** Keys the subscribers share: each holds STREAMS_PER_KEY (default 20) streams, the most the service lets one key hold. */
const KEYS = 5;
const REST_PER_KEY = 16;
const GRAPHQL_PER_KEY = 4;
export const LIVE_SUBSCRIBERS = { rest: KEYS * REST_PER_KEY, graphql: KEYS * GRAPHQL_PER_KEY, total: KEYS * (REST_PER_KEY + GRAPHQL_PER_KEY) };
/** Writes in flight at most: beyond what the service keeps up with, they wait here, not in its accept queue. */
const IN_FLIGHT = 100;
/** How long the deliveries may take to arrive after the last write's answer before the missing ones count as missing. */
const SETTLE_MS = 30_000;

export interface LiveRun {
  label: string;
  writes: number;
  /** Writes answered per second of the paced run (below 200: the service did not keep up). */
  perSecond: number;
  /** CPU ms of the subscribers' service process per write (the deliveries' work included), and of the writer's when it is another. */
  cpuMsPerWrite: number;
  writerCpuMsPerWrite?: number;
  figures: DeliveryFigures;
  /** This process's event-loop delay while it paced the writes (p99, ms): it delays the noting of each answer. */
  writerLoopDelayP99: number;
  /** The machine's load average (1 minute) at the end of the run: another process's work weighs on every figure. */
  loadAverage: number;
}

/** The same paced writes with nobody subscribed: what the service and this machine sustain without the deliveries. */
export interface LiveBaseline {
  writes: number;
  perSecond: number;
  cpuMsPerWrite: number;
  loadAverage: number;
}

export interface LiveFigures {
  baseline: LiveBaseline;
  runs: LiveRun[];
}

type Write = (tag: string) => Promise<{ id: string; sentAt: number; answeredAt: number }>;

/** `POST /api/v1/contacts` to `writer`: when it was sent and when its answer arrived, on the clock every process shares. */
function writeTo(writer: ServerProcess, key: string): Write {
  let n = 0;
  return async (tag) => {
    const sentAt = performance.timeOrigin + performance.now();
    const response = await fetch(`${writer.url}/api/v1/contacts`, {
      method: 'POST',
      headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ first_name: 'Live', last_name: tag, email: `live-${tag}-${(n += 1)}-${Date.now()}@bench.example` }),
    });
    const text = await response.text();
    const answeredAt = performance.timeOrigin + performance.now();
    if (response.status !== 201) throw new Error(`POST /contacts answered ${response.status}: ${text.slice(0, 300)}`);
    return { id: (JSON.parse(text) as { id: string }).id, sentAt, answeredAt };
  };
}

/** The subscribers' process (scripts/bench/subscribers.ts). */
function subscribersProcess() {
  const child = fork(fileURLToPath(new URL('./subscribers.ts', import.meta.url)), { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = <T extends SubscribersReply['type']>(request: SubscribersRequest, answer: T) =>
    new Promise<Extract<SubscribersReply, { type: T }>>((resolve, reject) => {
      const onMessage = (message: SubscribersReply) => {
        if (message.type !== answer && message.type !== 'failed') return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (message.type === 'failed') reject(new Error(message.message));
        else resolve(message as Extract<SubscribersReply, { type: T }>);
      };
      const onExit = (code: number | null) => reject(new Error(`the subscribers' process exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send(request);
    });
  return {
    ask,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}

/**
 * Runs in the seeded workspace (`workspaceName`): makes the subscribers' keys, then for each
 * case opens the 100 streams on `service`, warms them up, writes at 200/s for `seconds` and
 * collects every delivery. `serviceEnv`: the environment `service` was started with (the second
 * process gets the same, without migrating).
 */
export async function benchLive(
  service: ServerProcess,
  serviceEnv: Record<string, string>,
  serviceScript: string,
  target: DatabaseTarget,
  workspaceName: string,
  seconds: number,
  progress: (line: string) => void,
  interrupted: () => boolean,
  track: (server: ServerProcess) => void,
): Promise<LiveFigures | undefined> {
  const database = await openDatabase(target);
  let keys: string[];
  let writerKey: string;
  try {
    keys = [];
    for (let k = 0; k < KEYS; k += 1) keys.push((await createKey(database.prisma, workspaceName, `live bench subscribers ${k + 1}`)).key);
    writerKey = (await createKey(database.prisma, workspaceName, 'live bench writer')).key;
  } finally {
    await database.close();
  }

  // Nobody subscribed first: the writes alone, paced the same.
  const write = writeTo(service, writerKey);
  await pace(write, 'warm', 1, progress, interrupted);
  const cpuBefore = service.cpuSeconds();
  const alone = await pace(write, 'alone', seconds, progress, interrupted);
  if (!alone) return undefined;
  const baseline = {
    writes: alone.writes.size,
    perSecond: alone.writes.size / alone.pacedSeconds,
    cpuMsPerWrite: ((service.cpuSeconds() - cpuBefore) * 1000) / alone.writes.size,
    loadAverage: loadavg()[0]!,
  };
  progress(`[live] nobody subscribed: ${baseline.writes} writes at ${baseline.perSecond.toFixed(0)}/s, service CPU ${baseline.cpuMsPerWrite.toFixed(2)} ms/write`);

  const runs: LiveRun[] = [];
  const second = await startServer('writer', serviceScript, { ...serviceEnv, MIGRATE_ON_START: 'false' });
  track(second);
  try {
    for (const [label, writer] of [
      ['writes and subscribers on one service process', service],
      ['writes to a second service process, subscribers on the first', second],
    ] as const) {
      if (interrupted()) return undefined;
      const run = await paced(label, service, writer, keys, writerKey, seconds, progress, interrupted);
      if (!run) return undefined;
      runs.push(run);
    }
  } finally {
    await second.stop();
  }
  return { baseline, runs };
}

async function paced(
  label: string,
  service: ServerProcess,
  writer: ServerProcess,
  keys: string[],
  writerKey: string,
  seconds: number,
  progress: (line: string) => void,
  interrupted: () => boolean,
): Promise<LiveRun | undefined> {
  const subscribers = subscribersProcess();
  try {
    const opened = await subscribers.ask({ type: 'open', url: service.url, keys, restPerKey: REST_PER_KEY, graphqlPerKey: GRAPHQL_PER_KEY }, 'opened');
    progress(`[live] ${label}: ${opened.rest} REST streams and ${opened.graphql} GraphQL subscriptions open on ${service.label}`);
    const write = writeTo(writer, writerKey);

    // Warm-up, not counted: a write at a time until every subscriber has had one (a GraphQL
    // subscription is connected before the service follows the commits for it), then a second
    // of the paced load.
    const warm: string[] = [];
    for (let i = 0; ; i += 1) {
      if (interrupted()) return undefined;
      warm.push((await write('warm')).id);
      await new Promise((r) => setTimeout(r, 50));
      const p = await subscribers.ask({ type: 'progress', recordIds: warm }, 'progress');
      if (p.reached === p.subscribers) break;
      if (i === 200) throw new Error(`after 200 writes only ${p.reached} of ${p.subscribers} subscribers had an event`);
    }
    await pace(write, 'warm', 1, progress, interrupted);

    await subscribers.ask({ type: 'mark' }, 'marked');
    const cpuBefore = service.cpuSeconds();
    const writerCpuBefore = writer === service ? 0 : writer.cpuSeconds();
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    const result = await pace(write, 'paced', seconds, progress, interrupted);
    loopDelay.disable();
    if (!result) return undefined;
    const { writes, pacedSeconds } = result;
    // Until every subscriber has every write's event, or SETTLE_MS after the last answer.
    const ids = [...writes.keys()];
    const expected = ids.length * (await subscribers.ask({ type: 'progress', recordIds: [] }, 'progress')).subscribers;
    const until = performance.now() + SETTLE_MS;
    let received = 0;
    while (performance.now() < until && !interrupted()) {
      received = (await subscribers.ask({ type: 'progress', recordIds: ids }, 'progress')).received;
      if (received >= expected) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // Deliveries that were still arriving are counted: give any duplicate a moment to show too.
    await new Promise((r) => setTimeout(r, 500));
    const cpuMsPerWrite = ((service.cpuSeconds() - cpuBefore) * 1000) / writes.size;
    const writerCpuMsPerWrite = writer === service ? undefined : ((writer.cpuSeconds() - writerCpuBefore) * 1000) / writes.size;
    const { figures } = await subscribers.ask({ type: 'figures', writes: Object.fromEntries(writes) }, 'figures');
    const run: LiveRun = {
      label,
      writes: writes.size,
      perSecond: writes.size / pacedSeconds,
      cpuMsPerWrite,
      writerCpuMsPerWrite,
      figures,
      writerLoopDelayP99: loopDelay.percentile(99) / 1e6,
      loadAverage: loadavg()[0]!,
    };
    progress(
      `[live] ${label}: ${writes.size} writes at ${run.perSecond.toFixed(0)}/s; ${figures.received} of ${figures.expected} deliveries; ` +
        `answer to client p50 ${figures.fromAnswer.p50.toFixed(0)} ms, p95 ${figures.fromAnswer.p95.toFixed(0)} ms, max ${figures.fromAnswer.max.toFixed(0)} ms ` +
        `(to the first subscriber: p50 ${figures.fromAnswerFirst.p50.toFixed(0)} ms, p95 ${figures.fromAnswerFirst.p95.toFixed(0)} ms); ` +
        `created_at to client p95 ${figures.fromCreatedAt.p95.toFixed(0)} ms; service CPU ${cpuMsPerWrite.toFixed(2)} ms/write; ` +
        `reader ${figures.reader.cpuMsPerSecond.toFixed(0)} ms CPU/s, its loop delay p99 ${figures.reader.loopDelayP99.toFixed(1)} ms; load average ${run.loadAverage.toFixed(1)}`,
    );
    for (const problem of problems(run)) progress(`[live] FAILURE: ${problem}`);
    return run;
  } finally {
    await subscribers.ask({ type: 'close' }, 'closed').catch(() => {});
    await subscribers.close();
  }
}

/** Writes at LIVE_WRITES_PER_SECOND for `seconds`, at most IN_FLIGHT at once; when each was sent and answered, by contact id. */
async function pace(
  write: Write,
  tag: string,
  seconds: number,
  progress: (line: string) => void,
  interrupted: () => boolean,
): Promise<{ writes: Map<string, { sentAt: number; answeredAt: number }>; pacedSeconds: number } | undefined> {
  const writes = new Map<string, { sentAt: number; answeredAt: number }>();
  const inFlight = new Set<Promise<void>>();
  let failed: Error | undefined;
  const started = performance.now();
  for (let i = 0; i < LIVE_WRITES_PER_SECOND * seconds && !interrupted() && !failed; i += 1) {
    const due = started + (i * 1000) / LIVE_WRITES_PER_SECOND;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    while (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    const one: Promise<void> = write(tag)
      .then(({ id, sentAt, answeredAt }) => void writes.set(id, { sentAt, answeredAt }))
      .catch((error: Error) => void (failed ??= error))
      .finally(() => inFlight.delete(one));
    inFlight.add(one);
  }
  await Promise.all(inFlight);
  if (failed) throw failed;
  if (interrupted()) return undefined;
  const pacedSeconds = (performance.now() - started) / 1000;
  if (tag !== 'warm' && writes.size / pacedSeconds < LIVE_WRITES_PER_SECOND * 0.95) {
    progress(`[live] the service answered ${(writes.size / pacedSeconds).toFixed(0)} writes/s, below the ${LIVE_WRITES_PER_SECOND} asked`);
  }
  return { writes, pacedSeconds };
}

/** What makes a run a failure whatever its latency: a delivery missing or twice, out of order, a stream that ended. */
export function problems(run: LiveRun): string[] {
  const f = run.figures;
  const out: string[] = [];
  if (f.missing > 0) out.push(`${run.label}: ${f.missing} of ${f.expected} deliveries MISSING`);
  if (f.duplicated > 0) out.push(`${run.label}: ${f.duplicated} deliveries DUPLICATED`);
  for (const e of f.ended.slice(0, 5)) out.push(`${run.label}: ${e}`);
  if (f.ended.length > 5) out.push(`${run.label}: ${f.ended.length - 5} more streams ended or failed`);
  return out;
}

const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const count = (n: number) => n.toLocaleString('en-US');

/** The rows as a Markdown table, with what each figure means. */
export function liveSection({ baseline, runs }: LiveFigures, database: string): string[] {
  const rows = runs.map((r) => {
    const f = r.figures;
    const bad = f.missing + f.duplicated + f.ended.length;
    return (
      `| ${r.label} | ${r.perSecond.toFixed(0)} | ${count(f.received)} / ${count(f.expected)}${bad ? ` (**${f.missing} missing, ${f.duplicated} duplicated, ${f.ended.length} streams ended**)` : ''} | ` +
      `${ms(f.fromAnswer.p50)} / **${ms(f.fromAnswer.p95)}** / ${ms(f.fromAnswer.p99)} / ${ms(f.fromAnswer.max)} | ${ms(f.fromAnswerFirst.p50)} / ${ms(f.fromAnswerFirst.p95)} | ${ms(f.fromAnswerRest.p95)} / ${ms(f.fromAnswerGraphql.p95)} | ` +
      `${ms(f.fromCreatedAt.p50)} / **${ms(f.fromCreatedAt.p95)}** / ${ms(f.fromCreatedAt.max)} | ${count(f.outOfOrder)} | ` +
      `${r.cpuMsPerWrite.toFixed(2)}${r.writerCpuMsPerWrite === undefined ? '' : ` + ${r.writerCpuMsPerWrite.toFixed(2)}`} | ` +
      `${f.reader.cpuMsPerSecond.toFixed(0)}, ${ms(f.reader.loopDelayP99)} / ${ms(f.reader.loopDelayMax)} | ${ms(r.writerLoopDelayP99)} | ${r.loadAverage.toFixed(1)} |`
    );
  });
  return [
    '### Live updates',
    '',
    `${database}; ${LIVE_SUBSCRIBERS.total} subscribers to one workspace (${LIVE_SUBSCRIBERS.rest} \`GET /api/v1/events/stream\`, ${LIVE_SUBSCRIBERS.graphql} GraphQL \`events\` subscriptions through graphql-sse, ${KEYS} keys of ${REST_PER_KEY + GRAPHQL_PER_KEY} streams each), \`POST /api/v1/contacts\` sent at ${LIVE_WRITES_PER_SECOND}/s.`,
    '',
    '| run | writes answered/s | deliveries received / expected | answer → client p50 / p95 / p99 / max ms | answer → first subscriber p50 / p95 ms | answer → client p95, SSE / GraphQL ms | created_at → client p50 / p95 / max ms | deliveries out of id order | service CPU ms/write | reader: CPU ms/s, loop delay p99 / max ms | load generator loop delay p99 ms | load average |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| for comparison, the same writes with nobody subscribed | ${baseline.perSecond.toFixed(0)} | – | – | – | – | – | – | ${baseline.cpuMsPerWrite.toFixed(2)} | – | – | ${baseline.loadAverage.toFixed(1)} |`,
    ...rows,
    '',
    "Answer → client: from the write's answer arriving at the load generator to the subscriber reading the event (the answer goes out after the commit, so this is a lower bound of commit-to-client). " +
      'Answer → first subscriber: per write, its earliest delivery (the rest of a delivery\'s delay is the fan-out to the others). ' +
      "created_at → client: from the event's `created_at`, stamped inside the write's transaction before it commits (an upper bound; the service's clock, in ms). " +
      'The subscribers run in a process of their own (the reader); every process shares the clock, and a reader or load generator short of CPU notes its times late (its loop delay). ' +
      'Out of id order: deliveries whose event id is lower than the one before on the same stream (the log is ordered by id; live events come in commit order). ' +
      "Service CPU: the subscribers' service process over the paced run, per write (+ the writing process's, when it is another). Load average: the machine's, 1 minute, at the end of the run.",
    '',
  ];
}
