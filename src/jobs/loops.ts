import { logError } from '../log.js';

/** One background task run again and again: `run` does one bounded round and says when to come back. */
export interface Loop {
  name: string;
  /** One round; `stopping()` turns true on shutdown (finish the current item, start no new one). Returns the wait before the next round, in ms. */
  run(stopping: () => boolean): Promise<number>;
  /** A wake-up within this long of the last round's start waits for the rest of it: wake-ups under load share a round. */
  wakeIntervalMs?: number;
}

export interface RunningLoops {
  /** Starts the loop's next round now if it is waiting (new work was just committed); `now` skips its wake interval (room was just freed). */
  wake(name: string, now?: boolean): void;
  /** Starts no new round, and waits for the rounds in progress. */
  stop(): Promise<void>;
}

/**
 * The process's background work: each loop runs one round at a time, waits what the
 * round asked for, and runs again until `stop`. A round that fails is logged and tried
 * again after a pause; one loop never holds up another.
 */
export function startLoops(loops: Loop[], retryAfterFailureMs = 5_000): RunningLoops {
  let stopping = false;
  // `wanted`: woken during a round, so another follows it (`now`: at once, else no sooner than its wake interval allows).
  const state = new Map<string, { timer?: NodeJS.Timeout; dueAt: number; running?: Promise<void>; wanted: false | 'soon' | 'now'; startedAt: number }>();

  /** The next round in `delayMs`, unless one is already due sooner. */
  const schedule = (loop: Loop, delayMs: number) => {
    const s = state.get(loop.name)!;
    if (stopping) return;
    const dueAt = performance.now() + delayMs;
    if (s.timer && s.dueAt <= dueAt) return;
    clearTimeout(s.timer);
    s.dueAt = dueAt;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      round(loop);
    }, delayMs);
    // Background work never keeps the process alive on its own.
    s.timer.unref();
  };

  /** The wait before the loop may start again after being woken: what is left of its wake interval. */
  const intervalLeft = (loop: Loop) => state.get(loop.name)!.startedAt + (loop.wakeIntervalMs ?? 0) - performance.now();

  const round = (loop: Loop, now = true) => {
    const s = state.get(loop.name)!;
    if (stopping || s.running) {
      if (now || !s.wanted) s.wanted = now ? 'now' : 'soon';
      return;
    }
    // The round schedules its successor: a round due later is this one.
    clearTimeout(s.timer);
    s.timer = undefined;
    s.wanted = false;
    s.startedAt = performance.now();
    s.running = loop
      .run(() => stopping)
      .then(
        (next) => next,
        (error) => {
          logError(null, error, `background ${loop.name}`);
          return retryAfterFailureMs;
        },
      )
      .then((next) => {
        s.running = undefined;
        // Wake-ups under a stream of commits come while rounds run: the interval still spaces the rounds out.
        schedule(loop, s.wanted === 'now' ? 0 : s.wanted === 'soon' ? Math.min(next, Math.max(0, intervalLeft(loop))) : next);
      });
  };

  for (const loop of loops) {
    state.set(loop.name, { wanted: false, dueAt: Infinity, startedAt: -Infinity });
    schedule(loop, 0);
  }
  return {
    wake(name, now = false) {
      const loop = loops.find((l) => l.name === name);
      if (!loop) return;
      const s = state.get(name)!;
      const wait = intervalLeft(loop);
      if (wait > 0 && !now && !s.running) schedule(loop, wait);
      else round(loop, now || wait <= 0);
    },
    async stop() {
      stopping = true;
      for (const s of state.values()) clearTimeout(s.timer);
      await Promise.all([...state.values()].map((s) => s.running));
    },
  };
}
