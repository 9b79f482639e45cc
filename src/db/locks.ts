import { isWriteConflict } from './errors.js';
import type { ScopedDb } from './tenancy.js';

/** The client inside `db.$transaction(async (tx) => ...)`: still scoped to the caller's workspace. */
export type Tx = Parameters<Parameters<ScopedDb['$transaction']>[0]>[0];

/** Models whose rows can be locked: every one with an `id` and an `updatedAt`. */
export type Lockable = 'workspace' | 'contact' | 'company' | 'deal' | 'product' | 'task' | 'ticket' | 'ticketStatus' | 'paymentLink' | 'paymentTransaction';

interface LockDelegate {
  update(args: { where: { id: string }; data: { updatedAt: Date }; select: { id: true } }): PromiseLike<unknown>;
}

/**
 * Locks one row until the transaction ends, before anything reads it. Prisma has no
 * `SELECT ... FOR UPDATE`, so the lock is taken with a write (its `updatedAt`): on
 * PostgreSQL (READ COMMITTED) every later statement of the transaction then sees all
 * that committed before the lock; SQLite serializes write transactions anyway. A row
 * that is gone is Prisma's P2025, which `contractError` answers as NOT_FOUND.
 */
export async function lockRow(tx: Tx, model: Lockable, id: string): Promise<void> {
  const delegate: LockDelegate = tx[model];
  await delegate.update({ where: { id }, data: { updatedAt: new Date() }, select: { id: true } });
}

// Writers queue on a row lock: allow for the queue, beyond Prisma's 2 s / 5 s defaults.
const QUEUE = { maxWait: 15_000, timeout: 15_000 };
const ATTEMPTS = 3;


/**
 * Runs a read-modify-write as one interactive transaction: `work` locks what it
 * changes first (`lockRow`), then reads and writes. A write conflict rolls it back and
 * it runs again, at most three times in all, so a conflict is never an internal error.
 */
export async function atomically<T>(db: ScopedDb, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.$transaction(work, QUEUE);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isWriteConflict(error)) throw error;
    }
  }
}
