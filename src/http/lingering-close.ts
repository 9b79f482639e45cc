import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long, and how much, a closing connection still reads and drops (nginx's
 * `lingering_time`, `lingering_timeout` and a byte bound of ours): docs/security.md.
 */
export const LINGER = { totalMs: 5_000, idleMs: 2_000, bytes: 16 * 1024 * 1024 };

/** For each socket in its lingering close: counts the body bytes still dropped. */
const lingering = new WeakMap<Socket, (bytes: number) => void>();

/**
 * A lingering close (nginx's `lingering_close`) for every connection the server closes
 * after an answer, such as one sent before the request's body was read (a 401 without
 * a key, a 413 by the declared size): the service stops writing (a FIN after the
 * answer), reads and drops whatever body the client still sends, and closes once the
 * client has closed its side, has been silent for `idleMs`, has sent `bytes` more, or
 * after `totalMs`.
 *
 * Closing at once with body bytes unread or still arriving makes the kernel answer with
 * a reset, and a client still writing its body loses the answer it was sent. Node's
 * HTTP server ends such a connection with `socket.destroySoon()` (end, then destroy once
 * flushed): that one method is replaced on each of the server's sockets. The body is
 * dropped as it comes, never kept: memory does not grow with what the client sends.
 */
export function lingerOnClose(server: Server, limits = LINGER): void {
  server.on('connection', (socket: Socket) => {
    (socket as Socket & { destroySoon(): void }).destroySoon = () => {
      if (socket.destroyed) return;
      let read = 0;
      const close = () => {
        clearTimeout(total);
        clearTimeout(idle);
        lingering.delete(socket);
        socket.destroy();
      };
      const total = setTimeout(close, limits.totalMs);
      const idle = setTimeout(close, limits.idleMs);
      lingering.set(socket, (bytes) => {
        read += bytes;
        if (read > limits.bytes) close();
        else idle.refresh();
      });
      socket.once('end', close);
      socket.once('close', close);
      socket.end();
    };
  });
  // The server adapter's stream over an unread body stops pulling it once the answer is
  // out, which would stall the connection: the rest is dropped, chunk by chunk, instead.
  // (Node's own 'finish' handler, which calls destroySoon, runs before this one.)
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    response.once('finish', () => {
      if (request.complete) return;
      request.removeAllListeners('data');
      request.removeAllListeners('readable');
      request.on('data', (chunk: Buffer) => lingering.get(request.socket)?.(chunk.length));
      request.resume();
    });
  });
}
