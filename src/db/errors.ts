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
