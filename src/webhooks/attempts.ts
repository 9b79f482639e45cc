import { Worker } from 'node:worker_threads';
import type { AttemptResult, PostOptions } from './send.js';
import { projectFile } from '../project-files.js';

/** One endpoint's attempts of a round, as the thread receives them. */
export interface AttemptBatch {
  id: number;
  url: string;
  /** The endpoint's secrets: two during a rotation, each signing every attempt. */
  secrets: string[];
  /** The attempts' instant (ms since the epoch): their `webhook-timestamp`. */
  at: number;
  deliveries: { eventId: string; payload: string }[];
  options: Omit<PostOptions, 'signal'>;
}

/** The thread's answer: each delivery's result, in the batch's order, or the defect that stopped it. */
export type AttemptReply = { id: number; threadId: number } & ({ results: AttemptResult[] } | { error: string });

/**
 * This process's webhook attempts run on a thread of their own (attempt-thread.ts): the
 * HTTP requests, reading their answers and the signatures (the reference library signs
 * in JavaScript) stay off the thread that answers API requests, which a stream of
 * deliveries would otherwise slow (docs/performance.md). The database work (claim,
 * outcomes) stays with the caller. One thread per process, started at the first attempt
 * and again after a crash; it holds the process open only while attempts are under way,
 * so a shutdown waits for those (SIGTERM lets them finish) and nothing else.
 */
let thread: Worker | undefined;
const waiting = new Map<number, { resolve: (reply: AttemptReply) => void; reject: (error: Error) => void }>();
let nextBatchId = 0;

function attemptThread(): Worker {
  if (thread) return thread;
  // From the sources (tests, tsx), the thread loads TypeScript through tsx; compiled (a bundle too), tsc's plain JavaScript.
  const fromSource = import.meta.url.endsWith('.ts');
  const file = projectFile(fromSource ? 'src/webhooks/attempt-thread.ts' : 'build/webhooks/attempt-thread.js');
  const started = fromSource
    ? new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(file.href)}); });`, { eval: true })
    : new Worker(file);
  started.unref();
  started.on('message', (reply: AttemptReply) => {
    const caller = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (waiting.size === 0) started.unref();
    caller?.resolve(reply);
  });
  const lost = (error: Error) => {
    if (thread !== started) return;
    thread = undefined;
    // The attempts it had are left unrecorded: their leases run out and they are attempted again.
    for (const caller of waiting.values()) caller.reject(error);
    waiting.clear();
  };
  started.on('error', lost);
  started.on('exit', (code) => lost(new Error(`the webhook attempt thread exited (${code})`)));
  thread = started;
  return started;
}

/** Signs and sends one endpoint's deliveries at once on the attempt thread: their results in order, and the thread's id. */
export async function attemptAll(batch: Omit<AttemptBatch, 'id'>): Promise<{ results: AttemptResult[]; threadId: number }> {
  const worker = attemptThread();
  const id = (nextBatchId += 1);
  const reply = await new Promise<AttemptReply>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.ref();
    worker.postMessage({ ...batch, id } satisfies AttemptBatch);
  });
  if ('error' in reply) throw new Error(`webhook attempt thread: ${reply.error}`);
  return { results: reply.results, threadId: reply.threadId };
}
