/** Prisma's known request errors, by code, whatever the driver adapter. */
const hasCode = (error: unknown, code: string) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;

/** P2002: a unique constraint refused the write. */
export const isUniqueViolation = (error: unknown): boolean => hasCode(error, 'P2002');

/** P2003: a foreign key refused the write (a referenced row is gone, or a deleted row is still referenced). */
export const isForeignKeyViolation = (error: unknown): boolean => hasCode(error, 'P2003');

/** P2025: the row an update, delete or connect needed does not exist (any more). */
export const isRecordGone = (error: unknown): boolean => hasCode(error, 'P2025');

/** P2034: PostgreSQL reported a serialization failure or a deadlock; the transaction was rolled back and may run again. */
export const isWriteConflict = (error: unknown): boolean => hasCode(error, 'P2034');

/**
 * PostgreSQL's 25P02: an earlier statement of this transaction failed (a unique or
 * foreign key race that the code caught to try another way), so the transaction can
 * only roll back. SQLite has no such state.
 */
export const isAbortedTransaction = (error: unknown): boolean => {
  const meta = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null)?.meta;
  return meta?.driverAdapterError?.cause?.originalCode === '25P02';
};

/**
 * A write that lost a race to a concurrent one and is worth running again from the
 * start: a conflict, or a constraint that a concurrent commit made fail (run again, the
 * code's own checks see that commit and answer as they would have).
 */
export const lostRace = (error: unknown): boolean =>
  isWriteConflict(error) || isAbortedTransaction(error) || isUniqueViolation(error) || isForeignKeyViolation(error) || isRecordGone(error);

/**
 * P1008: on the embedded database, the file's write lock stayed taken by another process
 * (a cluster worker, the command line's import) for the whole wait (src/db/sqlite-adapter.ts).
 */
export const isDatabaseBusy = (error: unknown): boolean => hasCode(error, 'P1008');

/** What a person is told when a wait for the database ran out (the command line; a REST 503's body says less). */
export const DATABASE_BUSY_MESSAGE = 'The database stayed locked by another process (a running service, an import) for the whole wait; nothing of this step was written. Try again.';
