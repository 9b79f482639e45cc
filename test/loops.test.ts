import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Loop, startLoops } from '../src/jobs/loops.js';

// The background loops' scheduling (src/jobs/loops.ts), on fake timers: wake-ups under a
// stream of commits share rounds spaced by the loop's wake interval, and a wake-up "now"
// (room just freed) is never held back. Database-independent: run once.

describe.runIf(process.env.TEST_PROVIDER !== 'postgresql')('background loops', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A loop whose rounds last until `finish()` is called, counting them. */
  function blockingLoop(wakeIntervalMs: number) {
    let rounds = 0;
    let finish: () => void = () => {};
    const loop: Loop = {
      name: 'test',
      wakeIntervalMs,
      run: () => {
        rounds += 1;
        return new Promise<number>((resolve) => (finish = () => resolve(60_000)));
      },
    };
    return { loop, rounds: () => rounds, finish: () => finish() };
  }

  it('wake-ups during a round start one more round, no sooner than the wake interval after the last one started', async () => {
    vi.useFakeTimers();
    const { loop, rounds, finish } = blockingLoop(100);
    const running = startLoops([loop]);
    await vi.advanceTimersByTimeAsync(0);
    expect(rounds()).toBe(1);
    for (let i = 0; i < 5; i += 1) running.wake('test');
    await vi.advanceTimersByTimeAsync(10);
    finish();
    await vi.advanceTimersByTimeAsync(89);
    expect(rounds()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(rounds()).toBe(2);
    finish();
    // No wake-up since: the round's own answer (a minute) stands, and a wake-up then waits out the interval.
    await vi.advanceTimersByTimeAsync(50);
    running.wake('test');
    await vi.advanceTimersByTimeAsync(49);
    expect(rounds()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(rounds()).toBe(3);
    finish();
    await running.stop();
  });

  it('a wake-up “now” during a round starts the next as soon as it ends, and between rounds at once', async () => {
    vi.useFakeTimers();
    const { loop, rounds, finish } = blockingLoop(100);
    const running = startLoops([loop]);
    await vi.advanceTimersByTimeAsync(0);
    running.wake('test', true);
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(rounds()).toBe(2);
    finish();
    await vi.advanceTimersByTimeAsync(0);
    running.wake('test', true);
    await vi.advanceTimersByTimeAsync(0);
    expect(rounds()).toBe(3);
    finish();
    await running.stop();
  });
});
