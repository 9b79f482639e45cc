import { createKey } from './auth/api-keys.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { resolveDatabase } from './db/database-url.js';
import { applyMigrations } from './db/migrate.js';
import { listen } from './serve.js';

const config = loadConfig();
const target = resolveDatabase(config.DATABASE_URL);
const log = (line: string) => process.stdout.write(`${line}\n`);

if (config.MIGRATE_ON_START) await applyMigrations(target, { log });
const database = await openDatabase(target);

// First start on an empty database: a workspace and a key, printed this once.
if ((await database.prisma.workspace.count()) === 0) {
  const created = await createKey(database.prisma, 'default', 'first key');
  log(`Created workspace "default" and its first API key (shown only now, keep it):\n\n  ${created.key}\n`);
}

const running = await listen(database, config);
log(`Salesgraph listening on ${running.url} (${target.provider}): REST ${running.url}/api/v1, GraphQL ${running.url}/graphql`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: finishing in-flight requests`);
  await running.close();
  await database.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
