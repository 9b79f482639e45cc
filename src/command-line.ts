import { parseArgs } from 'node:util';
import { createKey, listKeys, revokeKey } from './auth/api-keys.js';
import { SCOPE_RESOURCES, parseScopes } from './auth/scopes.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { resolveDatabase } from './db/database-url.js';
import { applyMigrations } from './db/migrate.js';
import { DATABASE_BUSY_MESSAGE, isDatabaseBusy } from './db/errors.js';
import { existingWorkspace, noSuchWorkspace } from './db/workspaces.js';
import { CommitSignal } from './events/commit-signal.js';
import { loadDemo } from './demo/demo-data.js';
import type { DatabaseTarget } from './db/database-url.js';
import { IMPORT_RESOURCES, type ImportResource, UnreadableImport, importCsv, scanFile } from './import/import-csv.js';
import { importProgress } from './import/progress.js';
import { updateWorkspaceSettings, workspaceSettings } from './modules/workspaces/workspaces.admin.js';
import { restRoutes } from './modules/index.js';
import { buildSchema } from './schema.js';
import { rotateAccountSecrets } from './modules/payment-provider-accounts/rotate-secrets.js';
import { createPayments } from './payments/payments.js';

/** Each command's usage, by its name (`keys create`: the command and its subcommand). */
const COMMANDS: Record<string, string> = {
  'keys create': `keys create --workspace <name> [--name <label>] [--scopes <list>] [--expires-in-days <n>] [--json]
      Makes a key (and the workspace, if there is none); --json prints {"workspace_id":"...","key":"sg_..."}.
      scopes: read, write (the default), <resource>:read, <resource>:write, comma-separated`,
  'keys list': `keys list --workspace <name> [--json]
      The workspace's keys: id, prefix, name, scopes, expiry, creation, last use, state.`,
  'keys revoke': `keys revoke <key id or prefix>`,
  'workspaces show': `workspaces show <name> [--json]`,
  'workspaces set': `workspaces set <name> --default-currency <ISO 4217 code> [--json]`,
  demo: `demo --workspace <name>
      Loads the demo data set once (one transaction), making the workspace if there is none.`,
  import: `import <contacts|companies|products|deals> <file.csv> --workspace <name> [--dry-run] [--report <rejected.csv>] [--json]
      Columns by header name as in the export; contacts match by email, companies by domain, products by sku.
      exit 0: every row taken; 1: some rejected (--report lists them); 2: the file or the workspace is wrong (nothing written)`,
  migrate: `migrate
      Applies pending migrations to DATABASE_URL.`,
  'secrets rotate': `secrets rotate [--json]
      Seals every stored provider credential again with SECRETS_KEY's first key (list the new key first, the old ones after it).`,
};

const USAGE = `Usage: npm run --silent cli -- <command> [--help]

${Object.values(COMMANDS)
  .map((lines) => `  ${lines.replaceAll('\n', '\n  ')}`)
  .join('\n')}

Every command but keys create and demo needs a workspace that exists. DATABASE_URL selects the database (default ./data/salesgraph.db).`;

/** The usage of the command `positionals` name (its first two words, then its first), or of them all. */
const usageOf = (positionals: string[]) => {
  const lines = COMMANDS[positionals.slice(0, 2).join(' ')] ?? COMMANDS[positionals[0] ?? ''];
  return lines ? `Usage: npm run --silent cli -- ${lines}` : USAGE;
};

/**
 * Where a command writes and what it reads: the process's own streams and environment
 * (src/cli.ts), or a test's. stdout carries only what a command promises (one JSON line
 * for `keys create --json`); everything else goes to stderr.
 */
export interface CommandLineIo {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** An error as a person reads it: a wait for the database that ran out says so, not Prisma's code. */
const messageOf = (error: unknown) => (isDatabaseBusy(error) ? DATABASE_BUSY_MESSAGE : (error as Error).message);

const writers = (io: CommandLineIo) => ({ out: (line: string) => io.stdout.write(`${line}\n`), err: (line: string) => io.stderr.write(`${line}\n`) });

/** `import`: the CSV import of API.md section 8 (src/import/import-csv.ts). */
async function importCommand(
  io: CommandLineIo,
  target: DatabaseTarget,
  options: { resource: ImportResource; file: string; workspace: string; dryRun: boolean; report?: string; json: boolean },
  redis: { url: string; channel: string } | undefined,
): Promise<number> {
  const { out, err } = writers(io);
  let scanned: Awaited<ReturnType<typeof scanFile>>;
  try {
    scanned = await scanFile(options.file);
  } catch (error) {
    err((error as Error).message);
    return 2;
  }
  // With REDIS_URL, each committed transaction's events are published, as a serving process's are (a Redis that does not answer stops it here).
  const channel = redis && (await (await import('./events/event-channel.js')).connectEventChannel(redis));
  await applyMigrations(target, { log: err });
  const database = await openDatabase(target);
  const { schema } = buildSchema();
  const progress = importProgress(Math.max(0, scanned.lines - 1), io.stderr);
  try {
    const summary = await importCsv(database, schema, restRoutes, { ...options, scanned, progress: progress.update, commits: channel && new CommitSignal(channel.publish) });
    progress.stop();
    const counts = `created ${summary.created}, updated ${summary.updated}, rejected ${summary.rejected}` + (summary.skipped ? `, skipped ${summary.skipped} (committed by an earlier run of this file)` : '');
    if (options.json) out(JSON.stringify(summary));
    else out(options.dryRun ? `Dry run, nothing written: ${counts}` : counts);
    if (summary.rejected > 0) err(options.report ? `Rejected rows, with their line numbers and reasons: ${options.report}` : 'Pass --report <file.csv> for the rejected rows and their reasons.');
    return summary.rejected > 0 ? 1 : 0;
  } catch (error) {
    progress.stop();
    err(error instanceof UnreadableImport ? error.message : `Error: ${messageOf(error)}`);
    return 2;
  } finally {
    await Promise.all([database.close(), channel?.close()]);
  }
}

/** Runs one command to its end: its exit code (0 done, 1 refused or failed, 2 a wrong command or an unreadable file). */
export async function runCommandLine(argv: string[], io: CommandLineIo): Promise<number> {
  try {
    return await main(argv, io);
  } catch (error) {
    io.stderr.write(`Error: ${messageOf(error)}\n`);
    return 1;
  }
}

const OPTIONS = {
  workspace: { type: 'string' },
  name: { type: 'string' },
  json: { type: 'boolean', default: false },
  'default-currency': { type: 'string' },
  scopes: { type: 'string' },
  'expires-in-days': { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  report: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

async function main(argv: string[], io: CommandLineIo): Promise<number> {
  const { out, err } = writers(io);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    // An unknown option or a missing value: say which, then how the command goes.
    err(`${(error as Error).message}\n\n${usageOf(argv.filter((a) => !a.startsWith('-')))}`);
    return 2;
  }
  const { positionals, values } = parsed;
  if (values.help) {
    out(usageOf(positionals));
    return 0;
  }
  const [command, sub, arg] = positionals;
  const config = loadConfig(io.env);
  const target = resolveDatabase(config.DATABASE_URL);

  if (command === 'migrate') {
    const applied = await applyMigrations(target, { log: err });
    err(applied.length ? `Applied ${applied.length} migration(s).` : 'No pending migrations.');
    return 0;
  }
  if (command === 'demo') {
    if (sub || !values.workspace) {
      err(usageOf(positionals));
      return 2;
    }
    await applyMigrations(target, { log: err });
    const database = await openDatabase(target);
    try {
      const result = await loadDemo(database.prisma, buildSchema().represent, values.workspace, err);
      if (result.loaded) {
        const total = Object.values(result.counts).reduce((a, b) => a + b, 0);
        err(`Loaded the demo data set (${total} rows) into workspace "${values.workspace}" (${result.workspaceId}).`);
        err(`Get a key for it: npm run --silent cli -- keys create --workspace ${JSON.stringify(values.workspace)} --json`);
      }
      const { HOST, PORT } = config;
      err(`Pay the demo link: http://${HOST.includes(':') ? `[${HOST}]` : HOST}:${PORT}/pay/${result.payableToken}`);
      return 0;
    } catch (error) {
      err(`Error: ${messageOf(error)}`);
      err('Nothing was loaded (the demo loads in one transaction).');
      return 1;
    } finally {
      await database.close();
    }
  }
  if (command === 'secrets') {
    if (sub !== 'rotate' || arg) {
      err(usageOf(positionals));
      return 2;
    }
    await applyMigrations(target, { log: err });
    const database = await openDatabase(target);
    try {
      const counts = await rotateAccountSecrets(database.prisma, createPayments(config).secrets);
      out(values.json ? JSON.stringify(counts) : `Sealed ${counts.rotated} account(s) with the first key; ${counts.current} already were; ${counts.unreadable} no key opens.`);
      return counts.unreadable > 0 ? 1 : 0;
    } finally {
      await database.close();
    }
  }
  if (command === 'import') {
    if (!sub || !arg || !values.workspace || positionals.length > 3 || !(IMPORT_RESOURCES as string[]).includes(sub)) {
      err(usageOf(positionals));
      return 2;
    }
    return importCommand(io, target, { resource: sub as ImportResource, file: arg, workspace: values.workspace, dryRun: values['dry-run'], report: values.report, json: values.json }, config.REDIS_URL ? { url: config.REDIS_URL, channel: config.EVENTS_REDIS_CHANNEL } : undefined);
  }
  if (command === 'workspaces' && arg && (sub === 'show' || sub === 'set')) {
    await applyMigrations(target, { log: err });
    const database = await openDatabase(target);
    try {
      const changes = sub === 'set' ? { defaultCurrency: values['default-currency'] } : undefined;
      if (changes && changes.defaultCurrency === undefined) {
        err(usageOf(positionals));
        return 2;
      }
      const result = changes ? await updateWorkspaceSettings(database.prisma, arg, changes) : { workspace: await workspaceSettings(database.prisma, arg) };
      if ('errors' in result) {
        for (const reasons of Object.values(result.errors ?? {})) for (const reason of reasons) err(reason.replace('default currency field', '--default-currency value'));
        return 1;
      }
      const { workspace } = result;
      if (!workspace) {
        err(noSuchWorkspace(arg));
        return 2;
      }
      const settings = { id: workspace.id, name: workspace.name, default_currency: workspace.defaultCurrency, updated_at: workspace.updatedAt.toISOString() };
      out(values.json ? JSON.stringify(settings) : `Workspace ${settings.id} "${settings.name}": default currency ${settings.default_currency}`);
      return 0;
    } finally {
      await database.close();
    }
  }
  if (command !== 'keys' || !sub) {
    err(usageOf(positionals));
    return 2;
  }

  await applyMigrations(target, { log: err });
  const database = await openDatabase(target);
  try {
    if (sub === 'create' && values.workspace) {
      const { scopes, invalid } = parseScopes(values.scopes ?? 'write');
      if (invalid.length > 0 || scopes.length === 0) {
        err(`Unknown scope${invalid.length === 1 ? '' : 's'}: ${invalid.join(', ') || '(none given)'}. Scopes: read, write, <resource>:read, <resource>:write with a resource of ${SCOPE_RESOURCES.join(', ')}.`);
        return 2;
      }
      const days = values['expires-in-days'];
      if (days !== undefined && !/^[1-9]\d{0,4}$/.test(days)) {
        err('--expires-in-days takes a whole number of days from 1 to 99999.');
        return 2;
      }
      const created = await createKey(database.prisma, values.workspace, values.name ?? 'default', { scopes, expiresInDays: days === undefined ? undefined : Number(days) });
      if (values.json) out(JSON.stringify({ workspace_id: created.workspaceId, key: created.key }));
      else out(`Workspace ${created.workspaceId}: key ${created.key} (shown only now; prefix ${created.prefix}, id ${created.id})`);
      return 0;
    }
    if (sub === 'list' && values.workspace) {
      if (!(await existingWorkspace(database.prisma, values.workspace))) {
        err(noSuchWorkspace(values.workspace));
        return 2;
      }
      const keys = await listKeys(database.prisma, values.workspace);
      if (values.json) out(JSON.stringify(keys));
      else {
        for (const k of keys) {
          const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : k.expiresAt && k.expiresAt <= new Date() ? `expired ${k.expiresAt.toISOString()}` : 'active';
          const expiry = k.expiresAt ? `expires ${k.expiresAt.toISOString()}` : 'never expires';
          out([k.id, k.prefix, k.name, `scopes ${k.scopes}`, expiry, `created ${k.createdAt.toISOString()}`, `last used ${k.lastUsedAt?.toISOString() ?? 'never'}`, state].join('  '));
        }
      }
      return 0;
    }
    if (sub === 'revoke' && arg) {
      const result = await revokeKey(database.prisma, arg);
      if (result.revoked === 0) {
        err(result.ambiguous ? `"${arg}" matches more than one active key; give the key id.` : `No active key matches "${arg}".`);
        return 1;
      }
      err('Key revoked.');
      return 0;
    }
    err(usageOf(positionals));
    return 2;
  } finally {
    await database.close();
  }
}

