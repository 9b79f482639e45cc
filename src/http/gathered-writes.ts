/**
 * How long after its last write a REST event stream gathers messages for the next: at 200
 * events a second, about four a write; at most this much more delay, against the 500 ms
 * of API.md section 10. (A GraphQL subscription's events go as Yoga writes them: wrapping
 * its stream to gather them cost more CPU than the writes it saved.)
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
