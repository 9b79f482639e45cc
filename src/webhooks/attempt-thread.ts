// The thread that makes this process's webhook attempts (see attempts.ts): each message is
// one endpoint's batch, signed and sent here, and answered with its results in order.
import { parentPort, threadId } from 'node:worker_threads';
import type { AttemptBatch, AttemptReply } from './attempts.js';
import { postWebhook } from './send.js';
import { webhookSigner } from './signing.js';

const port = parentPort!;

port.on('message', (batch: AttemptBatch) => {
  void attempt(batch).then((reply) => port.postMessage(reply));
});

async function attempt(batch: AttemptBatch): Promise<AttemptReply> {
  try {
    const sign = webhookSigner(batch.secrets);
    const at = new Date(batch.at);
    const results = await Promise.all(batch.deliveries.map(({ eventId, payload }) => postWebhook(batch.url, payload, sign(eventId, at, payload), batch.options)));
    return { id: batch.id, threadId, results };
  } catch (error) {
    // postWebhook reports every network failure as a result: this is a defect, logged by the caller.
    return { id: batch.id, threadId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}
