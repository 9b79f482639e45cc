/** The points of a write request's life where a test may stop the process (test/support/crash-at.mjs). */
export type CrashPoint =
  | 'idempotency:before-transaction'
  | 'idempotency:written'
  | 'idempotency:committed'
  | 'response:ready'
  // A refund committed and claimed, its provider not asked yet; the provider answered, its answer not recorded yet.
  | 'refund:before-provider'
  | 'refund:provider-answered';

/**
 * Marks that a request reached `point`. Nothing happens unless a test loaded its hook
 * (`node --import test/support/crash-at.mjs`), which kills the process there: crashes
 * are tested at each point of a write's life, not assumed.
 */
export function reached(point: CrashPoint): void {
  (globalThis as { salesgraphReached?: (point: CrashPoint) => void }).salesgraphReached?.(point);
}
