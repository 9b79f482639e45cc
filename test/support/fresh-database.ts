import { resolveDatabase } from '../../src/db/database-url.js';
import { scratchDatabase } from './scratch-database.js';
import { databaseUrl } from './file-database.js';

/** An empty database of this run's provider, and a way to drop it. */
export function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const provider = resolveDatabase(databaseUrl()).provider;
  return scratchDatabase(provider, process.env.TEST_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres', 'fresh');
}
