import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * Brings `build/` up to date with `src/` (scripts/build-if-changed.mjs, as `npm start` does),
 * once per test run: the tests that start the service or the command line as real
 * processes run the compiled JavaScript, which starts in about half the time tsx takes.
 * Kept on globalThis: every project's global setup runs in the one main process.
 */
export function buildOnce(): Promise<void> {
  const shared = globalThis as { salesgraphBuild?: Promise<void> };
  shared.salesgraphBuild ??= promisify(execFile)(process.execPath, ['scripts/build-if-changed.mjs']).then(
    () => undefined,
    (error: { stdout?: string }) => {
      throw new Error(`scripts/build-if-changed.mjs failed:\n${(error as { stderr?: string }).stderr ?? error}`);
    },
  );
  return shared.salesgraphBuild;
}
