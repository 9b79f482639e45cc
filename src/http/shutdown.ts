/**
 * The process's shutdown as requests see it (API.md section 5). SIGTERM first *drains*:
 * `/readyz` answers 503 so that a load balancer stops sending, every answer closes its
 * connection, and new connections are still served. Then the server *stops*: it accepts
 * nothing more, and a request still waiting on something it does not own (a retry
 * waiting for its Idempotency-Key's first request) stops waiting and answers 503 with
 * `Retry-After`, so that no answer depends on work the process may never see finish.
 */
export class Shutdown {
  #draining = false;
  readonly #stop = new AbortController();

  get draining(): boolean {
    return this.#draining;
  }

  /** Aborted when the server stops accepting. */
  get stopping(): AbortSignal {
    return this.#stop.signal;
  }

  drain(): void {
    this.#draining = true;
  }

  stop(): void {
    this.#draining = true;
    this.#stop.abort();
  }
}
