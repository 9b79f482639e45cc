import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../db/client.js';
import { lostRace } from '../db/errors.js';
import { type Tx, atomically, joinable } from '../db/locks.js';
import { newRow } from '../db/tenancy.js';
import type { Context } from '../graphql/context.js';
import { reached } from '../http/crash-points.js';
import { logError } from '../log.js';

/** What a route answered: replayed as is for a retry. `error`: what was thrown, when the answer came from an error (never sent). */
export interface Outcome {
  status: number;
  body: unknown;
  error?: unknown;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a retry waits for the first request with its key to finish before 409. */
const WAIT_MS = 30_000;
/** A request can hold its key's transaction this long (its write included); beyond Prisma's 5 s default, as a long batch may take. */
const TRANSACTION_MS = 60_000;

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

/** Thrown inside the key's transaction to roll it back: a refused request keeps nothing, its key included. */
class Refused {
  constructor(readonly outcome: Outcome) {}
}
/** Another request holds the key's transaction: this one waits outside any transaction. */
const BUSY = Symbol('busy');

/**
 * `Idempotency-Key` on POST (API.md section 2): the key's record, the write, its events
 * and the stored answer commit in **one transaction**, so a crash at any instant leaves
 * all of them or none, and a retry either replays the first answer or runs once.
 *
 * The transaction first takes the key: on PostgreSQL a transaction-level advisory lock
 * on (workspace, key), tried without waiting (a retry that finds it held waits outside
 * any transaction, polling, for up to 30 s, then answers 409); on SQLite the database's
 * write lock (one writer: write transactions run one at a time, across processes too).
 * Holding the key, it reads the key's record: a committed one is replayed (or 422 for
 * another body). Otherwise the route runs on the transaction's client, so the mutation and its events join it, and
 * a success stores its answer before the commit; anything else rolls back, so the key
 * is free for a corrected retry. A lost race reruns the whole transaction. Records live
 * 24 hours; expired ones are purged as requests come, at most once a minute per process.
 * A retry waiting when `stopping` is aborted (the server stops accepting) answers at
 * once: its wait is not the process's work.
 */
export function createIdempotency(database: Database, stopping?: AbortSignal) {
  const { prisma } = database;
  let lastPurge = 0;
  // Every workspace's expired records, in one indexed statement (on createdAt).
  const purgeExpired = async (now: number) => {
    if (now - lastPurge < 60_000) return;
    lastPurge = now;
    await prisma.idempotencyRecord.deleteMany({ where: { createdAt: { lt: new Date(now - DAY_MS) } } }).catch(() => {
      lastPurge = 0; // try again with the next request
    });
  };
  /** Takes the key for the transaction's life; false when another transaction holds it (PostgreSQL only). */
  const takeKey = async (tx: Tx, workspaceId: string, key: string): Promise<boolean> => {
    // SQLite: every transaction holds the database's write lock from its start (src/db/sqlite-adapter.ts).
    if (database.target.provider !== 'postgresql') return true;
    const [row] = await tx.$queryRawUnsafe<{ held: boolean }[]>('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS "held"', `idempotency:${workspaceId}:${key}`);
    return row!.held;
  };

  return async function idempotent(context: Context, key: string, request: { path: string; hash: string }, run: (context: Context) => Promise<Outcome>): Promise<IdempotentResult> {
    const started = Date.now();
    await purgeExpired(started);
    const workspaceId = context.workspace.id;
    for (let attempt = 0; ; attempt += 1) {
      reached('idempotency:before-transaction');
      let committed: (() => void)[] = [];
      // The last run's answer when it lost a race: still the answer if no run is left to win it.
      let lost: Outcome | undefined;
      let answer: IdempotentResult | typeof BUSY;
      try {
        answer = await atomically(
          context.db,
          async (tx) => {
            committed = [];
            if (!(await takeKey(tx, workspaceId, key))) return BUSY;
            const record = await tx.idempotencyRecord.findUnique({ where: { workspaceId_key: { workspaceId, key } } });
            // Status 0 is a claim an earlier version committed before its write and never completed: nothing to replay.
            if (record && record.status !== 0 && Date.now() - record.createdAt.getTime() < DAY_MS) {
              if (record.requestHash !== request.hash) return { conflict: 'mismatch' as const };
              return { status: record.status, body: JSON.parse(record.responseBody), replayed: true };
            }
            if (record) await tx.idempotencyRecord.delete({ where: { id: record.id } });
            const outcome = await run({ ...context, db: joinable(tx) as unknown as Context['db'], afterCommit: (fn) => committed.push(fn) });
            // A race the write lost reruns everything, its key included; any other refusal keeps nothing.
            if (outcome.error !== undefined && lostRace(outcome.error)) {
              lost = outcome;
              throw outcome.error;
            }
            if (outcome.status < 200 || outcome.status >= 300) throw new Refused(outcome);
            reached('idempotency:written');
            const row = newRow(workspaceId);
            await tx.idempotencyRecord.create({
              data: { ...row, key, method: 'POST', path: request.path, requestHash: request.hash, status: outcome.status, responseBody: JSON.stringify(outcome.body ?? null) },
            });
            return { status: outcome.status, body: outcome.body, replayed: false };
          },
          { timeout: TRANSACTION_MS },
        );
      } catch (error) {
        if (error instanceof Refused) return { ...error.outcome, replayed: false };
        // Every run lost its race: the last one's answer (a 422 for a value taken meanwhile, as without a key).
        if (lost && error === lost.error) {
          if (lost.status >= 500) logError(context.requestId, error, `POST ${request.path}`);
          return { ...lost, replayed: false };
        }
        throw error;
      }
      if (answer !== BUSY) {
        reached('idempotency:committed');
        for (const fn of committed) fn();
        return answer;
      }
      if (Date.now() - started >= WAIT_MS) return { conflict: 'in-progress' };
      if (stopping?.aborted) return { conflict: 'unavailable' };
      await sleep(Math.min(250, 10 * 2 ** Math.min(attempt, 5)), undefined, { signal: stopping }).catch(() => {});
      if (stopping?.aborted) return { conflict: 'unavailable' };
    }
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
