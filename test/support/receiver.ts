import { type IncomingHttpHeaders, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers the n-th request (from 0): a status and body, or nothing at all (it holds the request). */
export type Answer = (n: number, received: Received) => { status: number; body?: string; headers?: Record<string, string> } | 'hold';

export interface Receiver {
  url: string;
  received: Received[];
  /** The parsed bodies by webhook-id. */
  ids(): string[];
  close(): Promise<void>;
}

/** A local webhook receiver that records every request it gets. */
export async function startReceiver(answer: Answer = () => ({ status: 200, body: 'ok' })): Promise<Receiver> {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const n = received.push(entry) - 1;
      const reply = answer(n, entry);
      if (reply === 'hold') {
        held.push(res);
        return;
      }
      res.writeHead(reply.status, { 'Content-Type': 'text/plain', ...reply.headers });
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    ids: () => received.map((r) => String(r.headers['webhook-id'])),
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
