// The webhook rows of `npm run bench` (issue 18): the write with and without a subscribed
// endpoint, the delay from a write's answer to its first delivery attempt while the service
// takes 200 writes/s, and how fast a backlog of deliveries drains to a receiver that answers
// at once. The receiver runs in a process of its own (scripts/bench/receiver.ts).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Sample, measure, percentile } from './load.js';
import type { ServerProcess } from './processes.js';
import type { ReceiverReply, ReceiverRequest } from './receiver.js';

const WRITES_PER_SECOND = 200;
const PACED_SECONDS = 10;
/** Writes in flight at most during the paced run: beyond what the service keeps up with, they wait here, not in its accept queue. */
const PACED_IN_FLIGHT = 100;

export interface WebhookFigures {
  withoutEndpoint: Sample[];
  withEndpoint: Sample[];
  /** `perSecond`: the writes answered per second of the paced run (below 200: the service did not keep up). */
  latency: Latency;
  drain: { deliveries: number; seconds: number; perSecond: number };
  /** The same paced run, with a second endpoint subscribed that never answers (API.md section 6: endpoints are isolated). */
  besideStalled: Latency;
}

/** From a write's answer to its first attempt at the receiver; `perSecond`: the writes answered per second of the paced run. */
interface Latency {
  writes: number;
  delivered: number;
  perSecond: number;
  p50: number;
  p95: number;
  max: number;
}

/** The receiver (scripts/bench/receiver.ts), started in a process of its own. */
async function receiver() {
  const child = fork(fileURLToPath(new URL('./receiver.ts', import.meta.url)), { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = <T extends ReceiverReply['type']>(type: T) =>
    new Promise<Extract<ReceiverReply, { type: T }>>((resolve, reject) => {
      const onMessage = (message: ReceiverReply) => {
        if (message.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message as Extract<ReceiverReply, { type: T }>);
      };
      const onExit = (code: number | null) => reject(new Error(`the webhook receiver exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ask = <T extends ReceiverReply['type']>(request: ReceiverRequest & { type: T }) => {
    const answer = next(request.type as T);
    child.send(request);
    return answer;
  };
  const { url } = await next('listening');
  return {
    url,
    /** When each of `ids` first arrived (ms since the epoch), for those that did. */
    arrivals: async (ids: string[]) => new Map(Object.entries((await ask({ type: 'arrivals', ids })).at)),
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}

/** Runs in the seeded workspace (`key`), after the other measurements: everything goes through the API. */
export async function benchWebhooks(
  service: ServerProcess,
  key: string,
  load: { connections: number; seconds: number; rounds: number },
  progress: (line: string) => void,
  interrupted: () => boolean,
): Promise<WebhookFigures | undefined> {
  const hook = await receiver();
  try {
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${service.url}/api/v1${path}`, { method, headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
      return text ? JSON.parse(text) : undefined;
    };
    let n = 0;
    const write = { method: 'POST' as const, path: () => '/api/v1/contacts', body: () => JSON.stringify({ first_name: 'Hook', email: `hook-${(n += 1)}-${Date.now()}@bench.example` }) };

    // 1. The write, without then with one endpoint subscribed to it (rounds alternate, so drift hits both alike).
    const endpoint = await api('POST', '/webhook-endpoints', { url: hook.url, events: ['contact.created'], is_active: false });
    const withoutEndpoint: Sample[] = [];
    const withEndpoint: Sample[] = [];
    // Warm-up, not recorded: the writes and the delivery path both (with --webhooks-only nothing ran before).
    for (const active of [false, true]) {
      await api('PUT', `/webhook-endpoints/${endpoint.id}`, { is_active: active });
      await measure(service, key, write, { ...load, seconds: Math.min(2, load.seconds) });
    }
    for (let round = 1; round <= load.rounds; round += 1) {
      // Without then with, then with then without: a machine that drifts slower or faster through the run weighs on both alike.
      for (const active of round % 2 === 1 ? [false, true] : [true, false]) {
        if (interrupted()) return undefined;
        await api('PUT', `/webhook-endpoints/${endpoint.id}`, { is_active: active });
        const sample = await measure(service, key, write, load);
        (active ? withEndpoint : withoutEndpoint).push(sample);
        progress(`[webhooks ${round}/${load.rounds}] POST /contacts ${active ? 'with' : 'without'} an endpoint: ${Math.round(sample.perSecond)} req/s, ${sample.cpuMsPerRequest.toFixed(2)} ms service CPU/req`);
      }
    }
    // Let the deliveries of the load finish before timing anything else (an inactive endpoint's pending ones wait).
    await api('PUT', `/webhook-endpoints/${endpoint.id}`, { is_active: true });
    const count = async (endpointId: string, status: string) => (await api('GET', `/webhook-endpoints/${endpointId}/deliveries?status=${status}&per_page=1`)).total as number;
    await waitFor(async () => (await count(endpoint.id, 'pending')) === 0, 120_000);

    // 2. From a write's answer to its first attempt at the receiver, at 200 writes/s.
    const paced = async (label: string): Promise<Latency> => {
      const answered = new Map<string, number>();
      const inFlight = new Set<Promise<void>>();
      const started = performance.now();
      for (let i = 0; i < WRITES_PER_SECOND * PACED_SECONDS && !interrupted(); i += 1) {
        const due = started + (i * 1000) / WRITES_PER_SECOND;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        while (inFlight.size >= PACED_IN_FLIGHT) await Promise.race(inFlight);
        const write: Promise<void> = api('POST', '/contacts', { first_name: 'Paced', email: `paced-${label.replace(/\W+/g, '-')}-${i}-${Date.now()}@bench.example` })
          .then((c: { id: string }) => void answered.set(c.id, performance.timeOrigin + performance.now()))
          .finally(() => inFlight.delete(write));
        inFlight.add(write);
      }
      await Promise.all(inFlight);
      const pacedSeconds = (performance.now() - started) / 1000;
      let arrivals = new Map<string, number>();
      await waitFor(async () => (arrivals = await hook.arrivals([...answered.keys()])).size === answered.size, 60_000);
      const delays = [...answered].map(([id, at]) => arrivals.get(id)! - at).sort((a, b) => a - b);
      const latency = { writes: answered.size, delivered: delays.length, perSecond: answered.size / pacedSeconds, p50: percentile(delays, 50), p95: percentile(delays, 95), max: delays.at(-1) ?? 0 };
      progress(`[webhooks] ${WRITES_PER_SECOND} writes/s for ${PACED_SECONDS} s, ${label} (answered: ${latency.perSecond.toFixed(0)}/s): answer to first attempt p50 ${latency.p50.toFixed(0)} ms, p95 ${latency.p95.toFixed(0)} ms`);
      return latency;
    };
    const since = new Date().toISOString();
    const latency = await paced('one endpoint');

    // 3. A backlog: the paced writes' events replayed to a second endpoint, inactive until the clock starts.
    const second = await api('POST', '/webhook-endpoints', { url: hook.url, events: ['contact.created'], is_active: false });
    const { queued } = await api('POST', `/webhook-endpoints/${second.id}/replay`, { since });
    const drainStart = performance.now();
    await api('PUT', `/webhook-endpoints/${second.id}`, { is_active: true });
    await waitFor(async () => (await count(second.id, 'succeeded')) === queued, 120_000);
    const seconds = (performance.now() - drainStart) / 1000;
    const drain = { deliveries: queued as number, seconds, perSecond: queued / seconds };
    progress(`[webhooks] drained ${queued} deliveries in ${seconds.toFixed(2)} s: ${Math.round(drain.perSecond)}/s`);
    await api('PUT', `/webhook-endpoints/${second.id}`, { is_active: false });

    // 4. The paced run again, beside an endpoint that never answers: its attempts hold their
    // slots until they time out and its backlog grows past a claim's candidates, while the
    // first endpoint's deliveries must still go out at once.
    // Another origin (localhost, not 127.0.0.1), as another receiver's would be: the sender keeps 32 sockets per origin,
    // which a receiver that never answers fills, for every endpoint on its own server.
    await api('POST', '/webhook-endpoints', { url: hook.url.replace('127.0.0.1', 'localhost').replace(/\/hook$/, '/stall'), events: ['contact.created'] });
    const besideStalled = await paced('beside a stalled endpoint');
    return { withoutEndpoint, withEndpoint, latency, drain, besideStalled };
  } finally {
    await hook.close();
  }
}

async function waitFor(done: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!(await done())) {
    if (performance.now() > until) throw new Error('the webhook benchmark timed out waiting for deliveries');
    await new Promise((r) => setTimeout(r, 50));
  }
}
