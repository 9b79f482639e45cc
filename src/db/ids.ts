import { randomFillSync } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';

/**
 * The ULID's random characters, from a pool of crypto-random bytes refilled 4 KiB at a
 * time: the library's own source asks the kernel for one byte per character (16 calls
 * per id), about 3% of a write's CPU under load. A byte / 256 picks each of the 32
 * characters with equal chance, as the library's does.
 */
const pool = Buffer.alloc(4096);
let next = pool.length;
export function pooledRandom(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

/** ULIDs, monotonic within the process: on one instance, id order is creation order. */
export const newId: () => string = monotonicFactory(pooledRandom);

/**
 * The ids of one write's events, all of `time` (ms) and rising in the order made: a
 * generator of their own, so that no id made elsewhere in the process (at another time)
 * moves them off the time of the write's turn (src/events/outbox.ts).
 */
export function eventIdsAt(time: number): () => string {
  const make = monotonicFactory(pooledRandom);
  return () => make(time);
}

/** The lowest id made at `time`: a ULID starts with its creation time, so every id made earlier sorts below it. */
export const firstIdAt = (time: Date): string => `${encodeTime(time.getTime(), 10)}${'0'.repeat(16)}`;
