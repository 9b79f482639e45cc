import type { Worker } from 'node:cluster';
import { type RateLimitHit, type RateLimitStore, RateLimiter } from './rate-limit.js';

// Both sides of one IPC exchange: a worker asks the cluster primary, which holds the one
// in-memory count, so the limit is exact across workers with nothing else to run.
interface Ask {
  rateLimitAsk: { id: number; key: string; limit?: number };
}
interface Answer {
  rateLimitAnswer: { id: number; hit: RateLimitHit };
}

const isAsk = (message: unknown): message is Ask => typeof (message as Ask | null)?.rateLimitAsk?.id === 'number';
const isAnswer = (message: unknown): message is Answer => typeof (message as Answer | null)?.rateLimitAnswer?.id === 'number';

/** Worker side: a store that counts in the primary's memory. */
export function primaryRateLimitStore(limit: number): RateLimitStore {
  const waiting = new Map<number, { resolve(hit: RateLimitHit): void; reject(error: Error): void }>();
  let lastId = 0;
  process.on('message', (message) => {
    if (!isAnswer(message)) return;
    const { id, hit } = message.rateLimitAnswer;
    waiting.get(id)?.resolve(hit);
    waiting.delete(id);
  });
  // The primary is gone: nobody will answer, so the requests waiting go on uncounted.
  process.on('disconnect', () => {
    for (const { reject } of waiting.values()) reject(new Error('The cluster primary is gone.'));
    waiting.clear();
  });
  return {
    limit,
    hit: (key, keyLimit) =>
      new Promise((resolve, reject) => {
        const id = (lastId += 1);
        waiting.set(id, { resolve, reject });
        const ask: Ask = { rateLimitAsk: { id, key, limit: keyLimit } };
        process.send!(ask, undefined, undefined, (error: Error | null) => {
          if (!error) return;
          waiting.delete(id);
          reject(error);
        });
      }),
  };
}

/** Primary side: answers a worker's asks from `limiter`. */
export function answerRateLimitAsks(worker: Worker, limiter: RateLimiter): void {
  worker.on('message', async (message) => {
    if (!isAsk(message)) return;
    const { id, key, limit } = message.rateLimitAsk;
    const answer: Answer = { rateLimitAnswer: { id, hit: await limiter.hit(key, limit) } };
    // A worker that has just exited cannot be answered; its request is gone too.
    if (worker.isConnected()) worker.send(answer, undefined, undefined, () => {});
  });
}
