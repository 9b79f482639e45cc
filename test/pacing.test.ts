import { afterEach, describe, expect, it, vi } from 'vitest';
import { LONG_READ_MAX_WAIT_MS, LongReadPacing, QUIET_AFTER_MS } from '../src/http/pacing.js';

// src/http/pacing.ts: between two pages of a long read, the short requests in flight go first.
describe('long reads paced by the short requests in flight', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets a page start in the next turn when nothing is in flight, quiet when nothing began for a while', async () => {
    const pacing = new LongReadPacing();
    expect(await pacing.next()).toEqual({ quiet: true });
    pacing.started();
    pacing.finished();
    // Nothing in flight, but a request just ended: small pages still.
    expect(await pacing.next()).toEqual({ quiet: false });
  });

  it('holds the next page until the requests in flight are answered', async () => {
    const pacing = new LongReadPacing();
    pacing.started();
    pacing.started();
    let released = false;
    const next = pacing.next().then((r) => ((released = true), r));
    pacing.finished();
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(released).toBe(false);
    pacing.finished();
    expect(await next).toEqual({ quiet: false });
  });

  it(`goes on after ${LONG_READ_MAX_WAIT_MS} ms however busy, and is quiet ${QUIET_AFTER_MS} ms after the last request began`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const pacing = new LongReadPacing();
    pacing.started(); // never answered
    let released = false;
    const next = pacing.next().then((r) => ((released = true), r));
    await vi.advanceTimersByTimeAsync(LONG_READ_MAX_WAIT_MS - 1);
    expect(released).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await next).toEqual({ quiet: false });
    pacing.finished();
    await vi.advanceTimersByTimeAsync(QUIET_AFTER_MS);
    expect(await pacing.next()).toEqual({ quiet: true });
  });
});
