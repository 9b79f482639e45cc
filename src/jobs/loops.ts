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
  const state = new Map<string, { timer?: NodeJS.Timeout; running?: Promise<void>; wanted: boolean; startedAt: number }>();

  const schedule = (loop: Loop, delayMs: number) => {
    const s = state.get(loop.name)!;
    if (stopping) return;
    clearTimeout(s.timer);
    s.timer = setTimeout(() => round(loop), delayMs);
    // Background work never keeps the process alive on its own.
    s.timer.unref();
  };

  const round = (loop: Loop) => {
    const s = state.get(loop.name)!;
    if (stopping || s.running) {
      s.wanted = true;
      return;
    }
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
        schedule(loop, s.wanted ? 0 : next);
      });
  };

  for (const loop of loops) {
    state.set(loop.name, { wanted: false, startedAt: -Infinity });
    schedule(loop, 0);
  }
  return {
    wake(name, now = false) {
      const loop = loops.find((l) => l.name === name);
      if (!loop) return;
      const s = state.get(name)!;
      const wait = s.startedAt + (loop.wakeIntervalMs ?? 0) - performance.now();
      if (wait > 0 && !now && !s.running) schedule(loop, wait);
      else round(loop);
    },
    async stop() {
      stopping = true;
      for (const s of state.values()) clearTimeout(s.timer);
      await Promise.all([...state.values()].map((s) => s.running));
    },
  };
}
