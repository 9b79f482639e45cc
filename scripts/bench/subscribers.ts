// The subscribers of the live-updates row of `npm run bench` (scripts/bench/live.ts), in a
// process of their own so that reading 100 streams never slows the load generator's event
// loop (nor its timing of the writes' answers), and the other way round. REST streams
// (`GET /api/v1/events/stream`) are read with node:http and parsed by hand (the cheapest
// reader, so the reader's own cost weighs least on the figures); GraphQL subscriptions go
// through graphql-sse's client, as a front end would. Each delivery is noted on one clock
// shared by every process (ms since the epoch): when its bytes arrived, its record's id,
// and its event's `created_at`. The parent asks for progress and, at the end, for figures.
import { type IncomingMessage, request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createClient } from 'graphql-sse';

export type SubscribersRequest =
  | { type: 'open'; url: string; keys: string[]; restPerKey: number; graphqlPerKey: number }
  | { type: 'progress'; recordIds: string[] }
  /** The paced writes start: the reader's own CPU and event-loop delay are measured from here. */
  | { type: 'mark' }
  | { type: 'figures'; writes: Record<string, { sentAt: number; answeredAt: number }> }
  | { type: 'close' };

export interface LatencyFigures {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface DeliveryFigures {
  /** Subscribers × writes answered. */
  expected: number;
  /** Deliveries of the writes' events, duplicates included. */
  received: number;
  missing: number;
  duplicated: number;
  /** Deliveries whose event id was lower than the one before it on the same stream. */
  outOfOrder: number;
  /** From the write's answer arriving here to the delivery (the answer goes after the commit: a lower bound). */
  fromAnswer: LatencyFigures;
  /** From the event's `created_at` (stamped inside the write's transaction, before its commit: an upper bound). */
  fromCreatedAt: LatencyFigures;
  /** From sending the write (before its commit, queueing at the service included). */
  fromSent: LatencyFigures;
  /** Per write, its first delivery to any subscriber (what the fan-out to the others adds is the rest). */
  fromAnswerFirst: LatencyFigures;
  /** `fromAnswer` by kind of subscriber. */
  fromAnswerRest: LatencyFigures;
  fromAnswerGraphql: LatencyFigures;
  /** Streams that ended or failed while open (each a failure), with why. */
  ended: string[];
  /** This reader's own load since the mark: its CPU (ms per second) and its event loop's delay (p99, max; ms), which delays every reading it notes. */
  reader: { cpuMsPerSecond: number; loopDelayP99: number; loopDelayMax: number };
}

export type SubscribersReply =
  | { type: 'opened'; rest: number; graphql: number }
  | { type: 'failed'; message: string }
  | { type: 'progress'; received: number; reached: number; subscribers: number }
  | { type: 'figures'; figures: DeliveryFigures }
  | { type: 'marked' }
  | { type: 'closed' };

const now = () => performance.timeOrigin + performance.now();

interface Delivery {
  eventId: string;
  recordId: string;
  createdAt: number;
  receivedAt: number;
}

interface Subscriber {
  kind: 'rest' | 'graphql';
  deliveries: Delivery[];
  close(): void;
}

const subscribers: Subscriber[] = [];
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
let mark = { at: performance.now(), cpu: process.cpuUsage() };
const ended: string[] = [];
let closing = false;

/** The top-level `record_id` and the last `created_at` of the event (the fragment's last field), without parsing its JSON. */
const RECORD_ID = /"record_id":"([^"]+)"/;
const CREATED_AT = /"created_at":"([^"]+)"\}$/;

/** A REST stream: resolves once its headers and its opening comment arrived. */
function openRest(url: string, key: string, label: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const deliveries: Delivery[] = [];
    let response: IncomingMessage | undefined;
    const req = request(`${url}/api/v1/events/stream`, { headers: { 'X-Api-Key': key, Accept: 'text/event-stream' } });
    const subscriber: Subscriber = {
      kind: 'rest',
      deliveries,
      close: () => req.destroy(),
    };
    req.on('error', (error) => (response ? !closing && ended.push(`${label}: ${error.message}`) : reject(error)));
    req.on('response', (res) => {
      response = res;
      if (res.statusCode !== 200) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => reject(new Error(`${label}: HTTP ${res.statusCode} ${body.slice(0, 200)}`)));
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      let opened = false;
      res.on('data', (chunk: string) => {
        const at = now();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (message.startsWith(':')) {
            if (!opened) {
              opened = true;
              resolve(subscriber);
            }
            continue;
          }
          let eventId = '';
          let data = '';
          for (const line of message.split('\n')) {
            if (line.startsWith('id: ')) eventId = line.slice(4);
            else if (line.startsWith('data: ')) data = line.slice(6);
          }
          const recordId = RECORD_ID.exec(data)?.[1];
          const createdAt = CREATED_AT.exec(data)?.[1];
          if (!eventId || !recordId || !createdAt) {
            ended.push(`${label}: a message it could not read: ${message.slice(0, 200)}`);
            continue;
          }
          deliveries.push({ eventId, recordId, createdAt: Date.parse(createdAt), receivedAt: at });
        }
      });
      res.on('end', () => !closing && ended.push(`${label}: the stream ended`));
      res.on('error', (error) => !closing && ended.push(`${label}: ${error.message}`));
    });
    req.end();
  });
}

/** A GraphQL subscription through graphql-sse (distinct connections mode): resolves once connected. */
function openGraphql(url: string, key: string, label: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const deliveries: Delivery[] = [];
    const client = createClient({ url: `${url}/graphql`, headers: { 'X-Api-Key': key }, retryAttempts: 0 });
    let connected = false;
    const subscriber: Subscriber = { kind: 'graphql', deliveries, close: () => client.dispose() };
    client.subscribe<{ events: { id: string; recordId: string; createdAt: string } }>(
      // What a front end's list would take: the event and its record as REST shows it.
      { query: 'subscription { events { id type resource recordId createdAt data } }' },
      {
        next: (result) => {
          const at = now();
          const e = result.data?.events;
          if (!e) return void ended.push(`${label}: a result without an event: ${JSON.stringify(result).slice(0, 200)}`);
          deliveries.push({ eventId: e.id, recordId: e.recordId, createdAt: Date.parse(e.createdAt), receivedAt: at });
        },
        error: (error) => {
          const message = error instanceof Error ? error.message : JSON.stringify(error).slice(0, 200);
          if (connected) !closing && ended.push(`${label}: ${message}`);
          else reject(new Error(`${label}: ${message}`));
        },
        complete: () => !closing && connected && ended.push(`${label}: the subscription completed`),
      },
      {
        connected: () => {
          connected = true;
          resolve(subscriber);
        },
      },
    );
  });
}

export const percentileOf = (sorted: Float64Array, p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0);

function latency(values: number[]): LatencyFigures {
  const sorted = Float64Array.from(values).sort();
  return { count: sorted.length, p50: percentileOf(sorted, 50), p95: percentileOf(sorted, 95), p99: percentileOf(sorted, 99), max: sorted.at(-1) ?? 0 };
}

function figures(writes: Record<string, { sentAt: number; answeredAt: number }>): DeliveryFigures {
  const ids = Object.keys(writes);
  const fromAnswer: number[] = [];
  const fromCreatedAt: number[] = [];
  const fromSent: number[] = [];
  const byKind = { rest: [] as number[], graphql: [] as number[] };
  const first = new Map<string, number>();
  let received = 0;
  let missing = 0;
  let duplicated = 0;
  let outOfOrder = 0;
  for (const s of subscribers) {
    const seen = new Map<string, number>();
    let last = '';
    for (const d of s.deliveries) {
      // Every delivery is in order or not, the warm-up's included.
      if (d.eventId < last) outOfOrder += 1;
      last = d.eventId;
      const write = writes[d.recordId];
      if (!write) continue;
      received += 1;
      const times = (seen.get(d.recordId) ?? 0) + 1;
      seen.set(d.recordId, times);
      if (times > 1) {
        duplicated += 1;
        continue;
      }
      const lower = d.receivedAt - write.answeredAt;
      fromAnswer.push(lower);
      if (!(lower >= (first.get(d.recordId) ?? Infinity))) first.set(d.recordId, lower);
      byKind[s.kind].push(lower);
      fromCreatedAt.push(d.receivedAt - d.createdAt);
      fromSent.push(d.receivedAt - write.sentAt);
    }
    for (const id of ids) if (!seen.has(id)) missing += 1;
  }
  return {
    expected: subscribers.length * ids.length,
    received,
    missing,
    duplicated,
    outOfOrder,
    fromAnswer: latency(fromAnswer),
    fromCreatedAt: latency(fromCreatedAt),
    fromSent: latency(fromSent),
    fromAnswerFirst: latency([...first.values()]),
    fromAnswerRest: latency(byKind.rest),
    fromAnswerGraphql: latency(byKind.graphql),
    ended: [...ended],
    reader: {
      cpuMsPerSecond: (() => {
        const used = process.cpuUsage(mark.cpu);
        return (used.user + used.system) / 1000 / ((performance.now() - mark.at) / 1000);
      })(),
      loopDelayP99: loopDelay.percentile(99) / 1e6,
      loopDelayMax: loopDelay.max / 1e6,
    },
  };
}

const reply = (message: SubscribersReply) => process.send!(message);

process.on('message', async (message: SubscribersRequest) => {
  switch (message.type) {
    case 'open': {
      try {
        const opening: Promise<Subscriber>[] = [];
        message.keys.forEach((key, k) => {
          for (let i = 0; i < message.restPerKey; i += 1) opening.push(openRest(message.url, key, `REST stream ${k + 1}.${i + 1}`));
          for (let i = 0; i < message.graphqlPerKey; i += 1) opening.push(openGraphql(message.url, key, `GraphQL subscription ${k + 1}.${i + 1}`));
        });
        const results = await Promise.allSettled(opening);
        for (const r of results) if (r.status === 'fulfilled') subscribers.push(r.value);
        const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) return reply({ type: 'failed', message: `${results.filter((r) => r.status === 'rejected').length} streams did not open; first: ${(failed.reason as Error).message}` });
        reply({ type: 'opened', rest: subscribers.filter((s) => s.kind === 'rest').length, graphql: subscribers.filter((s) => s.kind === 'graphql').length });
      } catch (error) {
        reply({ type: 'failed', message: (error as Error).message });
      }
      return;
    }
    case 'progress': {
      const wanted = new Set(message.recordIds);
      let received = 0;
      let reached = 0;
      for (const s of subscribers) {
        let mine = 0;
        for (const d of s.deliveries) if (wanted.has(d.recordId)) mine += 1;
        received += mine;
        if (mine > 0) reached += 1;
      }
      return reply({ type: 'progress', received, reached, subscribers: subscribers.length });
    }
    case 'mark':
      mark = { at: performance.now(), cpu: process.cpuUsage() };
      loopDelay.reset();
      loopDelay.enable();
      return reply({ type: 'marked' });
    case 'figures':
      loopDelay.disable();
      return reply({ type: 'figures', figures: figures(message.writes) });
    case 'close':
      closing = true;
      for (const s of subscribers) s.close();
      return reply({ type: 'closed' });
  }
});
process.on('disconnect', () => {
  closing = true;
  for (const s of subscribers) s.close();
  process.exit(0);
});
