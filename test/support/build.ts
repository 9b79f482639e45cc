import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * Brings `build/` up to date with `src/` (tsc's incremental build, as `npm start` does),
 * once per test run: the tests that start the service or the command line as real
 * processes run the compiled JavaScript, which starts in about half the time tsx takes.
 * Kept on globalThis: every project's global setup runs in the one main process.
 */
export function buildOnce(): Promise<void> {
  const shared = globalThis as { salesgraphBuild?: Promise<void> };
  shared.salesgraphBuild ??= promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']).then(
    () => undefined,
    (error: { stdout?: string }) => {
      throw new Error(`tsc -p tsconfig.build.json failed:\n${error.stdout ?? error}`);
    },
  );
  return shared.salesgraphBuild;
}
