import { loadConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { type ScopedDb, scopeToWorkspace } from '../db/tenancy.js';
import type { Actor } from '../events/recorder.js';
import type { FieldErrors } from './errors.js';

/** Service settings resolvers need (from the environment: WEBHOOK_ALLOW_PRIVATE_NETWORKS, CHECKOUT_EXPIRY_MINUTES). */
export interface Settings {
  allowPrivateNetworks: boolean;
  checkoutExpiryMinutes: number;
}

const defaults = loadConfig({});
/** The settings when the environment sets none. */
export const DEFAULT_SETTINGS: Settings = { allowPrivateNetworks: defaults.WEBHOOK_ALLOW_PRIVATE_NETWORKS, checkoutExpiryMinutes: defaults.CHECKOUT_EXPIRY_MINUTES };

/** What every resolver gets: the caller's workspace and a client that sees only it. */
export interface Context {
  db: ScopedDb;
  workspace: { id: string; defaultCurrency: string };
  requestId: string;
  /** The key's scopes (src/auth/scopes.ts); absent: no limit (the public routes' own documents, the service's own work). */
  scopes?: readonly string[];
  /** Who is calling: the events a write records name it. */
  actor: Actor;
  /** The service's origin as the caller reached it (`http://host:port`): the checkout's next step links to it. */
  origin?: string;
  /** Service settings resolvers need. */
  settings: Settings;
  /** Inside a mutation: runs `fn` once its transaction has committed (never when it rolls back). */
  afterCommit?: (fn: () => void) => void;
  /**
   * Wrong JSON types the REST adapter found before execution (those fields were left
   * out of the variables); input validation reports them with every other problem.
   */
  inputTypeErrors?: FieldErrors;
  /** A CSV export's page size: larger than a client's `per_page` may be, for fewer round trips (src/rest/csv-export.ts). */
  exportPageSize?: number;
  /** Per-request memo of lookups many rows share (active property definitions). */
  cache?: Map<string, Promise<unknown>>;
}

/** The context of the service's own writes (background work: webhook auto-disable, checkout expiry), recorded with actor `system`. */
export function systemContext(prisma: Db, workspace: Context['workspace'], settings: Settings = DEFAULT_SETTINGS): Context {
  return { db: scopeToWorkspace(prisma, workspace.id), workspace, requestId: '', actor: { type: 'system' }, settings };
}
