import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../db/client.js';
import { isUniqueViolation } from '../db/errors.js';
import type { ScopedDb } from '../db/tenancy.js';
import { newRow } from '../db/tenancy.js';

/** What a route answered: replayed as is for a retry. */
export interface Outcome {
  status: number;
  body: unknown;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A claim this old that never completed belongs to a process that died: it may be taken over. */
const ABANDONED_MS = 60_000;
/** How long a retry waits for the first request with its key to finish before 409. */
const WAIT_MS = 30_000;
const IN_PROGRESS = 0;

export const MAX_KEY_LENGTH = 255;

/** Same method, path and JSON body (key order and spacing aside) means the same request. */
export function fingerprint(method: string, path: string, body: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]))
        : value;
  return createHash('sha256').update(JSON.stringify([method, path, canonical(body ?? {})])).digest('hex');
}

/** `unavailable`: the process stops serving while the request waits for the key's first request. */
export type IdempotentResult = (Outcome & { replayed: boolean }) | { conflict: 'mismatch' | 'in-progress' | 'unavailable' };

/**
 * `Idempotency-Key` on POST: the first request with a key claims it with one insert
 * (the unique (workspace, key) index decides between concurrent requests, on any
 * number of processes), runs, and stores its answer; a retry with the same body gets
 * that answer, waiting while the first is still running. Only successes are kept: a
 * refused or failed request changed nothing, so its key is released for a retry.
 * Records live 24 hours; expired ones are purged as requests come, at most once a
 * minute per process, so no separate job is needed. A retry waiting when `stopping` is
 * aborted (the server stops accepting) answers at once: its wait is not the process's work.
 */
export function createIdempotency(prisma: Db, stopping?: AbortSignal) {
  let lastPurge = 0;
  // Every workspace's expired records, in one indexed statement (on createdAt).
  const purgeExpired = async (now: number) => {
    if (now - lastPurge < 60_000) return;
    lastPurge = now;
    await prisma.idempotencyRecord.deleteMany({ where: { createdAt: { lt: new Date(now - DAY_MS) } } }).catch(() => {
      lastPurge = 0; // try again with the next request
    });
  };

  return async function idempotent(db: ScopedDb, workspaceId: string, key: string, request: { path: string; hash: string }, run: () => Promise<Outcome>): Promise<IdempotentResult> {
    const started = Date.now();
    await purgeExpired(started);
    const where = { workspaceId_key: { workspaceId, key } };
    for (let attempt = 0; ; attempt += 1) {
      const now = Date.now();
      let claimId: string | undefined;
      try {
        const row = newRow(workspaceId);
        await db.idempotencyRecord.create({ data: { ...row, key, method: 'POST', path: request.path, requestHash: request.hash, status: IN_PROGRESS, responseBody: '' } });
        claimId = row.id;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      if (claimId) return complete(db, claimId, run);

      const record = await db.idempotencyRecord.findUnique({ where });
      if (!record) continue; // released or purged meanwhile: claim again
      const age = now - record.createdAt.getTime();
      const expired = age >= DAY_MS;
      const abandoned = record.status === IN_PROGRESS && age >= ABANDONED_MS;
      if (expired || abandoned) {
        // Conditional on what was read, so two takers cannot both remove a fresh claim.
        await db.idempotencyRecord.deleteMany({ where: { id: record.id, status: record.status } });
        continue;
      }
      if (record.requestHash !== request.hash) return { conflict: 'mismatch' };
      if (record.status !== IN_PROGRESS) return { status: record.status, body: JSON.parse(record.responseBody), replayed: true };
      if (now - started >= WAIT_MS) return { conflict: 'in-progress' };
      if (stopping?.aborted) return { conflict: 'unavailable' };
      await sleep(Math.min(250, 10 * 2 ** Math.min(attempt, 5)), undefined, { signal: stopping }).catch(() => {});
      if (stopping?.aborted) return { conflict: 'unavailable' };
    }
  };
}

async function complete(db: ScopedDb, claimId: string, run: () => Promise<Outcome>): Promise<IdempotentResult> {
  let outcome: Outcome;
  try {
    outcome = await run();
  } catch (error) {
    await db.idempotencyRecord.deleteMany({ where: { id: claimId } });
    throw error;
  }
  if (outcome.status >= 200 && outcome.status < 300) {
    await db.idempotencyRecord.updateMany({ where: { id: claimId }, data: { status: outcome.status, responseBody: JSON.stringify(outcome.body ?? null) } });
  } else {
    await db.idempotencyRecord.deleteMany({ where: { id: claimId } });
  }
  return { ...outcome, replayed: false };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
