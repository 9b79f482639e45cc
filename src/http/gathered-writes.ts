import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * How long after its last write an event stream (REST or a GraphQL subscription) gathers
 * what it writes next: at 200 events a second, about four events a write; at most this
 * much more delay, against the 500 ms of API.md section 10.
 */
export const STREAM_GATHER_MS = 20;

/**
 * Runs `flush` when the window that began at `lastFlush` (performance.now()) ends, or at the
 * end of the current turn of the event loop once it has; returns its cancel.
 */
function atWindowEnd(lastFlush: number, gatherMs: number, flush: () => void): () => void {
  const wait = lastFlush + gatherMs - performance.now();
  if (wait > 0) {
    const timer = setTimeout(flush, wait);
    return () => clearTimeout(timer);
  }
  const immediate = setImmediate(flush);
  return () => clearImmediate(immediate);
}

/**
 * Chunks for one connection, written together when they come close together: a chunk
 * after a quiet spell goes out at the end of the current turn of the event loop (with
 * whatever else that turn brought); one within `gatherMs` of the last write waits until
 * `gatherMs` after it, and goes out with everything that came meanwhile. A write to a
 * socket costs about as much as the rest of an event's delivery to a stream, so a stream
 * following a busy workspace writes at most 1000 / `gatherMs` times a second, whatever
 * the rate of its events, and a quiet one loses no time (docs/decisions.md).
 */
export class GatheredWrites {
  #pending: Uint8Array[] = [];
  #lastWrite = Number.NEGATIVE_INFINITY;
  #cancel: (() => void) | undefined;

  constructor(
    private readonly gatherMs: number,
    /** Writes the chunks gathered (one or more, in the order they came). */
    private readonly write: (chunks: Uint8Array[]) => void,
  ) {}

  /** Chunks waiting for their write. */
  get pending(): number {
    return this.#pending.length;
  }

  push(chunk: Uint8Array): void {
    this.#pending.push(chunk);
    this.#cancel ??= atWindowEnd(this.#lastWrite, this.gatherMs, () => this.flush());
  }

  /** Writes what is pending now (the stream's end), and cancels the write that was due. */
  flush(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    if (this.#pending.length === 0) return;
    const chunks = this.#pending;
    this.#pending = [];
    this.#lastWrite = performance.now();
    this.write(chunks);
  }

  /** Drops what is pending (the stream was cut off). */
  stop(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    this.#pending = [];
  }
}

/** Whether a request asks for a GraphQL subscription over Server-Sent Events (Yoga answers one so only when asked). */
export const wantsSubscriptionStream = (request: IncomingMessage) =>
  request.url?.startsWith('/graphql') === true && request.headers.accept?.includes('text/event-stream') === true;

/**
 * GatheredWrites' rule on a response's connection, for the streams whose chunks are not
 * ours (a subscription's, which Yoga writes an event's two lines apart): the socket is
 * corked at a write after a quiet spell until the end of the turn, and at one within
 * `gatherMs` of the last flush until `gatherMs` after it. Each write still returns what
 * the connection says, so a reader that stops reading still holds its writer up (and its
 * subscription is ended at its bound).
 */
export function gatherWrites(response: ServerResponse, gatherMs = STREAM_GATHER_MS): void {
  let lastFlush = Number.NEGATIVE_INFINITY;
  let cancel: (() => void) | undefined;
  // One uncork for each cork, always: the socket is never left corked, closed or not.
  const flush = () => {
    cancel = undefined;
    lastFlush = performance.now();
    response.uncork();
  };
  const write = response.write;
  response.write = function (this: ServerResponse, ...args: Parameters<ServerResponse['write']>) {
    if (!cancel) {
      response.cork();
      cancel = atWindowEnd(lastFlush, gatherMs, flush);
    }
    return write.apply(this, args);
  } as ServerResponse['write'];
  // Uncorked before the end: from Node 22 a corked response holds its chunks back, and end()
  // sends the body's last chunk before them, so they would be lost (a subscription's
  // `complete` among them).
  const end = response.end;
  response.end = function (this: ServerResponse, ...args: Parameters<ServerResponse['end']>) {
    if (cancel) {
      cancel();
      flush();
    }
    return end.apply(this, args);
  } as ServerResponse['end'];
}
