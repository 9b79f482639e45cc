// Brings build/ up to date with src/ before `npm start` and `npm run cli`, and costs
// nothing when it already is: tsc's incremental build still takes ~4 s to find that out,
// so it runs only when a file under src/ is newer than its last build (build/.tsbuildinfo).
// Then the bundles (scripts/bundle.mjs): build/.bundled marks the last that succeeded.
// Prints nothing on stdout (`cli -- keys create --json` promises one JSON line there);
// tsc's messages go to stderr.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');

function newest(folder) {
  let latest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const modifiedAt = (file) => {
  try {
    return statSync(join(root, 'build', file)).mtimeMs;
  } catch {
    return 0;
  }
};
const builtAt = modifiedAt('.tsbuildinfo');

if (newest(join(root, 'src')) > builtAt || statSync(join(root, 'tsconfig.json')).mtimeMs > builtAt || statSync(join(root, 'tsconfig.build.json')).mtimeMs > builtAt) {
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: ['ignore', 2, 2] });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  // tsc leaves its build info alone when no output changed (a file saved as it was): mark the check done.
  const now = new Date();
  utimesSync(join(root, 'build', '.tsbuildinfo'), now, now);
}

if (modifiedAt('.bundled') < modifiedAt('.tsbuildinfo') || statSync(join(root, 'scripts', 'bundle.mjs')).mtimeMs > modifiedAt('.bundled')) {
  const bundle = spawnSync(process.execPath, [join(root, 'scripts', 'bundle.mjs')], { stdio: ['ignore', 2, 2] });
  if (bundle.status !== 0) process.exit(bundle.status ?? 1);
  writeFileSync(join(root, 'build', '.bundled'), '');
}
