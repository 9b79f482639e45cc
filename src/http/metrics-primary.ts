import type { Worker } from 'node:cluster';
import type { AggregatorRegistry, RegistryContentType } from 'prom-client';

// Both sides of one IPC exchange: the worker that gets a scrape asks the cluster primary,
// which asks every worker for its figures (prom-client's AggregatorRegistry) and answers the sum.
interface Ask {
  metricsAsk: { id: number };
}
interface Answer {
  metricsAnswer: { id: number; text?: string; contentType?: string; error?: string };
}

const isAsk = (message: unknown): message is Ask => typeof (message as Ask | null)?.metricsAsk?.id === 'number';
const isAnswer = (message: unknown): message is Answer => typeof (message as Answer | null)?.metricsAnswer?.id === 'number';

/** Longer than the primary's own wait for the workers (prom-client's 5 s). */
const ANSWER_TIMEOUT_MS = 10_000;

type Scrape = { text: string; contentType: string };

/** Worker side: a scrape that answers the cluster's sum, from the primary; it rejects when the primary does not answer in time. */
export function primaryScrape(): () => Promise<Scrape> {
  const waiting = new Map<number, { resolve(answer: Scrape): void; reject(error: Error): void }>();
  let lastId = 0;
  process.on('message', (message) => {
    if (!isAnswer(message)) return;
    const { id, text, contentType, error } = message.metricsAnswer;
    const asker = waiting.get(id);
    waiting.delete(id);
    if (text !== undefined && contentType !== undefined) asker?.resolve({ text, contentType });
    else asker?.reject(new Error(error ?? 'The cluster primary gave no metrics.'));
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = (lastId += 1);
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`The cluster primary did not answer a scrape within ${ANSWER_TIMEOUT_MS} ms.`));
      }, ANSWER_TIMEOUT_MS);
      const settle = {
        resolve: (answer: Scrape) => (clearTimeout(timer), resolve(answer)),
        reject: (error: Error) => (clearTimeout(timer), reject(error)),
      };
      waiting.set(id, settle);
      const ask: Ask = { metricsAsk: { id } };
      process.send!(ask, undefined, undefined, (error: Error | null) => {
        if (!error) return;
        waiting.delete(id);
        settle.reject(error);
      });
    });
}

/** Primary side: answers a worker's asks with the sum over all workers. */
export function answerMetricsAsks(worker: Worker, aggregator: AggregatorRegistry<RegistryContentType>): void {
  worker.on('message', async (message) => {
    if (!isAsk(message)) return;
    const { id } = message.metricsAsk;
    let answer: Answer;
    try {
      answer = { metricsAnswer: { id, text: await aggregator.clusterMetrics(), contentType: aggregator.contentType } };
    } catch (error) {
      answer = { metricsAnswer: { id, error: (error as Error).message } };
    }
    if (worker.isConnected()) worker.send(answer, undefined, undefined, () => {});
  });
}
