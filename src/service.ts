import type { Database } from './db/client.js';
import { DeliverySignal } from './events/deliveries.js';
import { type ServiceSchema, buildSchema } from './schema.js';

/**
 * The composition root's parts: what a serving process is built from, made once by
 * `composeService` and handed down to the HTTP faces (src/server.ts), the background
 * work (src/jobs/background.ts) and the command line. No module makes any of them at
 * import, so two services in one process (the tests) share nothing they should not.
 */
export interface Service extends ServiceSchema {
  database: Database;
  /** This service's writes that queue webhook deliveries wake its own delivery worker. */
  deliveries: DeliverySignal;
}

/** A service over `database`; `schema`: one already built in this process (it is the same for every service: the tests build it once). */
export function composeService(database: Database, schema: ServiceSchema = buildSchema()): Service {
  return { ...schema, database, deliveries: new DeliverySignal() };
}
