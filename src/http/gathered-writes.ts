/**
 * How long after its last write an event stream (REST or a GraphQL subscription) gathers
 * messages for the next: at 200 events a second, about four a write; at most this much
 * more delay, against the 500 ms of API.md section 10.
 */
export const STREAM_GATHER_MS = 20;

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
    if (this.#cancel) return;
    const wait = this.#lastWrite + this.gatherMs - performance.now();
    if (wait > 0) {
      const timer = setTimeout(() => this.flush(), wait);
      this.#cancel = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(() => this.flush());
      this.#cancel = () => clearImmediate(immediate);
    }
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

/** Whether a chunk ends a Server-Sent Events message (a blank line): Yoga writes an event's lines as two chunks. */
const endsMessage = (chunk: Uint8Array) => chunk.length >= 2 && chunk[chunk.length - 1] === 10 && chunk[chunk.length - 2] === 10;

/**
 * An event stream's body: `source`'s Server-Sent Events, gathered as GatheredWrites
 * gathers them. The source is read as fast as it gives; a reader that falls `bound`
 * messages behind is cut off (the stream errors, and `source` is cancelled), so what
 * waits for a slow reader is bounded in messages, never growing with its slowness.
 * Cancelling the body cancels `source`, and so does `signal` (the request's, aborted when
 * the connection closes: the server adapter cancels a body only on a request's error, so a
 * client that closes its side would otherwise keep its stream, and its place, until the
 * bound ran out).
 */
export function gatheredStream(source: ReadableStream<Uint8Array>, gatherMs: number, bound: number, signal?: AbortSignal): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  // The messages each chunk written holds: the bound counts messages, not chunks.
  const messagesIn = new WeakMap<Uint8Array, number>();
  let pendingMessages = 0;
  let writes: GatheredWrites | undefined;
  let onAbort: (() => void) | undefined;
  let stopped = false;
  const stop = (reason: unknown) => {
    if (stopped) return;
    stopped = true;
    writes?.stop();
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    reader.cancel(reason).catch(() => {});
    // A stream of the fetch ponyfill (Yoga's) runs its source's cancel only when cancelled itself:
    // its reader's cancel waits for the read in progress, which waits for the next event.
    if (!(source instanceof ReadableStream)) Promise.resolve((source as { cancel(reason?: unknown): unknown }).cancel(reason)).catch(() => {});
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const gathered = (writes = new GatheredWrites(gatherMs, (chunks) => {
          const chunk = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          messagesIn.set(chunk, pendingMessages);
          pendingMessages = 0;
          controller.enqueue(chunk);
        }));
        onAbort = () => {
          stop(signal!.reason);
          controller.error(new Error('the client went away'));
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        void (async () => {
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done || stopped) break;
              const ends = endsMessage(value) ? 1 : 0;
              // desiredSize counts messages the connection has not taken (less those gathered): this many waiting, the reader is dropped.
              if (ends && (controller.desiredSize ?? 1) - pendingMessages <= 0) throw new Error('reader too slow');
              pendingMessages += ends;
              gathered.push(value);
            }
            gathered.flush();
            if (onAbort) signal?.removeEventListener('abort', onAbort);
            controller.close();
          } catch (error) {
            stop(error);
            controller.error(error); // a no-op once the body was cancelled
          }
        })();
      },
      cancel: stop,
    },
    { highWaterMark: bound, size: (chunk) => (chunk ? (messagesIn.get(chunk) ?? 1) : 1) },
  );
}
