/** The longest a long read's next page waits for short requests to be answered: it goes on, at least one page this often, however busy the process. */
export const LONG_READ_MAX_WAIT_MS = 10;

/** No short request begun for this long: the process is quiet, and a long read may take larger pages. */
export const QUIET_AFTER_MS = 50;

/**
 * Long reads (an export, a stream's replay) go page by page, and between pages they let
 * the short requests in flight finish first (API.md section 5: heavy reads never stall
 * the server). A page asked for while none is in flight starts in the next turn of the
 * event loop; otherwise once they have all been answered, or after LONG_READ_MAX_WAIT_MS.
 * Without this, every turn a short request needs (each of its statements' answers) would
 * wait behind a page of each long read under way, and on PostgreSQL, whose answers are
 * all turns, a GET by id took several pages' time under two exports.
 */
export class LongReadPacing {
  #inFlight = 0;
  #lastStartedAt = -Infinity;
  #waiting: (() => void)[] = [];

  /** A short request began (the server counts every request while its answer is made, not while a stream's body is sent). */
  started(): void {
    this.#inFlight += 1;
    this.#lastStartedAt = performance.now();
  }

  /** A short request was answered. */
  finished(): void {
    this.#inFlight -= 1;
    if (this.#inFlight === 0 && this.#waiting.length > 0) {
      const waiting = this.#waiting;
      this.#waiting = [];
      for (const go of waiting) go();
    }
  }

  /**
   * Resolves when a long read may start its next page: `quiet` when no short request has
   * begun for QUIET_AFTER_MS (a long read alone may then take larger pages, which cost
   * less per row; beside short requests it keeps to small ones).
   */
  next(): Promise<{ quiet: boolean }> {
    const quiet = () => ({ quiet: this.#inFlight === 0 && performance.now() - this.#lastStartedAt >= QUIET_AFTER_MS });
    if (this.#inFlight === 0) return new Promise((resolve) => setImmediate(() => resolve(quiet())));
    return new Promise((resolve) => {
      const go = () => {
        clearTimeout(timer);
        resolve(quiet());
      };
      const timer = setTimeout(() => {
        this.#waiting = this.#waiting.filter((w) => w !== go);
        resolve(quiet());
      }, LONG_READ_MAX_WAIT_MS);
      this.#waiting.push(go);
    });
  }
}
