import { lostRace } from './errors.js';
import { type ScopedDb, overDelegates, workspaceOf } from './tenancy.js';

/** The client inside `db.$transaction(async (tx) => ...)`: still scoped to the caller's workspace. */
export type Tx = Parameters<Parameters<ScopedDb['$transaction']>[0]>[0];

/** Models whose rows can be locked: every one with an `id` and an `updatedAt`. */
export type Lockable = 'workspace' | 'contact' | 'company' | 'deal' | 'product' | 'task' | 'ticket' | 'ticketStatus' | 'paymentLink' | 'paymentCoupon' | 'paymentTransaction' | 'webhookEndpoint' | 'note';

const TABLES: Record<Lockable, string> = {
  workspace: 'Workspace', contact: 'Contact', company: 'Company', deal: 'Deal', product: 'Product', task: 'Task',
  ticket: 'Ticket', ticketStatus: 'TicketStatus', paymentLink: 'PaymentLink', paymentCoupon: 'PaymentCoupon', paymentTransaction: 'PaymentTransaction',
  webhookEndpoint: 'WebhookEndpoint', note: 'Note',
};

/**
 * Locks one row until the transaction ends, before anything reads it, with a write
 * that changes nothing (`SET "updatedAt" = "updatedAt"`): on PostgreSQL (READ
 * COMMITTED) every later statement of the transaction then sees all that committed
 * before the lock; SQLite serializes write transactions anyway. Changing nothing
 * matters: the lock is not a change of the record (no `updated_at`, no event). And no
 * key column is written, so PostgreSQL takes `FOR NO KEY UPDATE`: rows that refer to
 * the locked one (every insert refers to its workspace) are not held up by it. A row
 * that is not there (in the caller's workspace) is Prisma's P2025, which
 * `contractError` answers as NOT_FOUND.
 */
export async function lockRow(tx: Tx, model: Lockable, id: string): Promise<void> {
  const table = TABLES[model];
  const owner = model === 'workspace' ? 'id' : 'workspaceId';
  // A template's strings are ours (the table from the list above), its values are bound: Prisma writes each database's placeholders.
  const parts = [`UPDATE "${table}" SET "updatedAt" = "updatedAt" WHERE "id" = `, ` AND "${owner}" = `, ''];
  const locked = await tx.$executeRaw(Object.assign(parts, { raw: parts }) as unknown as TemplateStringsArray, id, workspaceOf(tx));
  if (locked === 0) throw Object.assign(new Error(`No ${table} row ${id} to lock`), { code: 'P2025', meta: { modelName: table } });
}

// Writers queue on a row lock: allow for the queue, beyond Prisma's 2 s / 5 s defaults.
const QUEUE = { maxWait: 15_000, timeout: 15_000 };
const ATTEMPTS = 3;

/**
 * Runs a read-modify-write as one interactive transaction: `work` locks what it
 * changes first (`lockRow`), then reads and writes. A write that lost a race
 * (`lostRace`) rolls back and runs again, at most three times in all, so a race is
 * never an internal error.
 */
export async function atomically<T>(db: ScopedDb, work: (tx: Tx) => Promise<T>, options: { timeout?: number } = {}): Promise<T> {
  // Inside a write's own transaction (every mutation has one): join it; that one retries.
  if (isTransaction(db)) return work(db as Tx);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.$transaction(work, { ...QUEUE, ...options });
    } catch (error) {
      if (attempt >= ATTEMPTS || !lostRace(error)) throw error;
    }
  }
}

const TRANSACTION = Symbol('transaction');

/** What makes a wrapper of a transaction's client joinable: its `$transaction` runs the work on `client()` inside the transaction. */
export function joining(client: () => object): Record<string | symbol, unknown> {
  return { $transaction: (work: (tx: object) => unknown) => Promise.resolve().then(() => work(client())), [TRANSACTION]: true };
}

/** A transaction's client whose `$transaction` joins it, so code written to open one runs inside it. */
export function joinable<T extends object>(tx: T): T {
  const models = tx as Record<string, unknown>;
  const client: T = overDelegates(tx, (_model, delegate) => models[delegate], joining(() => client));
  return client;
}

const isTransaction = (db: object) => TRANSACTION in db;
