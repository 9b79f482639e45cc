import type { ScopedDb } from '../db/tenancy.js';
import type { Actor } from '../events/recorder.js';
import type { FieldErrors } from './errors.js';

/** What every resolver gets: the caller's workspace and a client that sees only it. */
export interface Context {
  db: ScopedDb;
  workspace: { id: string; defaultCurrency: string };
  requestId: string;
  /** Who is calling: the events a write records name it. */
  actor: Actor;
  /** Service settings resolvers need. */
  settings: { allowPrivateNetworks: boolean };
  /** Inside a mutation: runs `fn` once its transaction has committed (never when it rolls back). */
  afterCommit?: (fn: () => void) => void;
  /**
   * Wrong JSON types the REST adapter found before execution (those fields were left
   * out of the variables); input validation reports them with every other problem.
   */
  inputTypeErrors?: FieldErrors;
  /** Per-request memo of lookups many rows share (active property definitions). */
  cache?: Map<string, Promise<unknown>>;
}
