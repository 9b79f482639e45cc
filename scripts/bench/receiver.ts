// The webhook receiver of `npm run bench` (scripts/bench/webhooks.ts), in a process of its
// own so that its work never slows the load generator's event loop: it answers 204 at once
// and notes, on one clock shared by every process (ms since the epoch), when each contact's
// event first arrived. Its parent asks over IPC. On the path /stall it stands for a receiver
// that never answers: each request is held until the sender gives up.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceiverRequest = { type: 'arrivals'; ids: string[] };
export type ReceiverReply = { type: 'listening'; url: string } | { type: 'arrivals'; at: Record<string, number> };

const now = () => performance.timeOrigin + performance.now();
const arrivals = new Map<string, number>();
const server = createServer((req, res) => {
  if (req.url === '/stall') return void req.resume();
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { object: { id: string } } }).data.object.id;
    if (!arrivals.has(id)) arrivals.set(id, now());
    res.writeHead(204).end();
  });
});
const reply = (message: ReceiverReply) => process.send!(message);
process.on('message', (message: ReceiverRequest) => {
  const at: Record<string, number> = {};
  for (const id of message.ids) {
    const t = arrivals.get(id);
    if (t !== undefined) at[id] = t;
  }
  reply({ type: 'arrivals', at });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
server.listen(0, '127.0.0.1', () => reply({ type: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` }));
