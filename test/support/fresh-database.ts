import { resolveDatabase } from '../../src/db/database-url.js';
import { scratchDatabase, testAdminUrl } from './scratch-database.js';
import { databaseUrl } from './file-database.js';

/** An empty database (not migrated) of this run's provider, and a way to drop it. */
export function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const provider = resolveDatabase(databaseUrl()).provider;
  return scratchDatabase(provider, testAdminUrl(), 'fresh');
}
