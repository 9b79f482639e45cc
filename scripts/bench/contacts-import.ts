// What the CSV benchmarks share (bench:csv, bench:heavy-reads): their common options and
// the command line's import of a generated contacts file, as a user runs it.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

/** `--provider`, `--rows` (from 1,000) and `--database` (a PostgreSQL admin URL), plus a script's own options. */
export function contactBenchOptions<T extends Record<string, { type: 'string'; default: string }>>(defaultRows: number, own: T) {
  const { values } = parseArgs({
    options: {
      provider: { type: 'string', default: 'sqlite' },
      rows: { type: 'string', default: String(defaultRows) },
      database: { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/postgres' },
      ...own,
    } as Record<string, { type: 'string'; default: string }>,
  }) as { values: Record<string, string> };
  const provider = values.provider as 'sqlite' | 'postgresql';
  if (provider !== 'sqlite' && provider !== 'postgresql') throw new Error('--provider is sqlite or postgresql');
  const rows = Number(values.rows);
  if (!Number.isInteger(rows) || rows < 1000) throw new Error('--rows must be a whole number from 1000');
  return { provider, rows, database: values.database as string, values: values as Record<keyof T, string> };
}

/** `build/cli.js import contacts <file> --workspace <name> --json` on `databaseUrl`: its summary line and seconds; throws unless it exits 0. */
export function importContacts(databaseUrl: string, file: string, workspace: string): { summary: string; seconds: number } {
  const started = performance.now();
  const imported = spawnSync(process.execPath, ['build/cli.js', 'import', 'contacts', file, '--workspace', workspace, '--json'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (imported.status !== 0) throw new Error(`import exited ${imported.status}: ${imported.stdout}`);
  return { summary: imported.stdout.trim(), seconds: (performance.now() - started) / 1000 };
}
