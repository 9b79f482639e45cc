import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { eventRetentionLoop } from '../events/retention.js';
import { type RunningLoops, startLoops } from './loops.js';

export type BackgroundConfig = Pick<Config, 'EVENT_RETENTION_DAYS'>;

/** Every loop a serving process runs beside its requests (each process of a cluster runs them). */
export function startBackgroundWork(database: Database, config: BackgroundConfig): RunningLoops {
  return startLoops([eventRetentionLoop(database.prisma, config.EVENT_RETENTION_DAYS)]);
}
