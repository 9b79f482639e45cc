import { randomFillSync } from 'node:crypto';
import { decodeTime, encodeTime, incrementBase32, monotonicFactory } from 'ulid';

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
 * Ids rising in the order made, every one above `newest` (the workspace's newest event id,
 * read while its writers take turns: src/events/outbox.ts), whatever the clocks of the
 * processes and instances that made the earlier ones: made now, or, while `newest` is of
 * this millisecond or later, counted on from it.
 */
export function idsAfter(newest: string | null): () => string {
  const now = Date.now();
  if (newest === null || decodeTime(newest) < now) {
    const make = monotonicFactory(pooledRandom);
    return () => make(now);
  }
  let last = newest;
  return () => (last = `${last.slice(0, 10)}${incrementBase32(last.slice(10))}`);
}

/** The lowest id made at `time`: a ULID starts with its creation time, so every id made earlier sorts below it. */
export const firstIdAt = (time: Date): string => `${encodeTime(time.getTime(), 10)}${'0'.repeat(16)}`;
