import type { Database } from './db/client.js';
import { CommitSignal } from './events/commit-signal.js';
import type { EventChannel } from './events/event-channel.js';
import { DEFAULT_SETTINGS } from './graphql/context.js';
import type { Payments } from './payments/providers.js';
import { type ServiceSchema, buildSchema } from './schema.js';

/**
 * The composition root's parts: what a serving process is built from, made once by
 * `composeService` and handed down to the HTTP faces (src/server.ts), the background
 * work (src/jobs/background.ts) and the command line. No module makes any of them at
 * import, so two services in one process (the tests) share nothing they should not.
 */
export interface Service extends ServiceSchema {
  database: Database;
  /**
   * What this service's writes say once committed: those that queue webhook deliveries wake
   * its own delivery worker; every one's events are published on `eventChannel`, when set.
   */
  commits: CommitSignal;
  /** REDIS_URL is set: the channel the service's commits are published on, and its live tail follows. */
  eventChannel?: EventChannel;
  /** The payment providers' adapters and the sealed secrets' keys: the HTTP faces and the background loops share them. */
  payments: Payments;
}

/**
 * A service over `database`; `schema`: one already built in this process (it is the same
 * for every service: the tests build it once); `eventChannel`: Redis pub/sub, connected
 * by the caller (main.ts) when REDIS_URL is set; `payments`: from the environment (main.ts), else its defaults.
 */
export function composeService(database: Database, schema: ServiceSchema = buildSchema(), eventChannel?: EventChannel, payments: Payments = DEFAULT_SETTINGS.payments): Service {
  return { ...schema, database, commits: new CommitSignal(eventChannel?.publish), eventChannel, payments };
}
