/**
 * Long fuzzing runs: the properties of test/fuzz.test.ts, many more runs, a fresh
 * seed each time (printed, so a failure replays).
 *
 *   npm run fuzz                                  # SQLite in a temporary folder, 100 batches per property
 *   FUZZ_RUNS=1000 FUZZ_SEED=42 npm run fuzz      # longer, or replaying a seed
 *   FUZZ_PROVIDER=postgresql npm run fuzz         # a fresh PostgreSQL database (TEST_DATABASE_URL, or postgres@127.0.0.1)
 *   FUZZ_ROUTES='contacts,graphql' npm run fuzz   # only routes whose "METHOD /path" contains one of these
 *
 * Exit code 1 when a property fails; each failure prints fast-check's shrunk
 * counterexample (route and request), the status and what the server logged.
 */
import { openDatabase } from '../src/db/client.js';
import { resolveDatabase } from '../src/db/database-url.js';
import { applyMigrations } from '../src/db/migrate.js';
import { publicRoutes, restRoutes } from '../src/modules/index.js';
import { listen } from '../src/serve.js';
import { composeService } from '../src/service.js';
import { scratchDatabase } from '../test/support/scratch-database.js';
import { PAGES, type Target, captureServerLog, fuzzGraphQL, fuzzPages, fuzzRestRoute, fuzzSettings, newApi, seedPublic, seedWorkspace } from '../test/support/fuzz.js';

const settings = fuzzSettings({ runs: 100, seed: Number(process.env.FUZZ_SEED || Math.floor(Math.random() * 2 ** 31)), shrinkMs: 60_000 });
const only = (process.env.FUZZ_ROUTES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const wanted = (label: string) => only.length === 0 || only.some((s) => label.includes(s));
const say = (line: string) => process.stdout.write(`${line}\n`);

/** A fresh, migrated database of the chosen provider, and how to remove it. */
const fresh = await scratchDatabase(process.env.FUZZ_PROVIDER === 'postgresql' ? 'postgresql' : 'sqlite', process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres', 'fuzz');
const target = resolveDatabase(fresh.url);
await applyMigrations(target);
const database = await openDatabase(target);
const server = await listen(composeService(database), { HOST: '127.0.0.1', PORT: 0, RATE_LIMIT_PER_MINUTE: 0, PUBLIC_RATE_LIMIT_PER_MINUTE: 0 });
const log = captureServerLog();
const app = { url: server.url, database };

say(`fuzzing ${server.url} on ${target.provider}: FUZZ_SEED=${settings.seed} FUZZ_RUNS=${settings.runs} (batches of up to ${settings.batch} requests per property)`);

/** A workspace seeded for the keyed routes, or (`public`) with an active test-provider link, a coupon and a checkout. */
async function freshTarget(kind: 'keyed' | 'public' = 'keyed'): Promise<Target> {
  const api = await newApi(app);
  return { api, database, seeded: await (kind === 'keyed' ? seedWorkspace(api) : seedPublic(api)), log };
}

/** Runs one fuzz target when FUZZ_ONLY wants it, and says how it went. */
async function check(label: string, run: () => Promise<string[]>): Promise<void> {
  if (!wanted(label)) return;
  const started = Date.now();
  const reports = await run();
  checked += 1;
  say(`${reports.length ? 'FAIL' : 'ok  '} ${label} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  failures.push(...reports);
}

const failures: string[] = [];
let checked = 0;
try {
  for (const route of restRoutes) await check(`${route.method} ${route.path}`, async () => fuzzRestRoute(route, await freshTarget(), settings));
  await check('POST /graphql', async () => fuzzGraphQL(await freshTarget(), { ...settings, runs: settings.runs * 10 }));
  // The routes that take no key (API.md section 7), and the payer's pages.
  for (const route of publicRoutes) await check(`${route.method} ${route.path}`, async () => fuzzRestRoute(route, await freshTarget('public'), settings, { keyless: true }));
  await check(`pages ${PAGES.map((p) => `${p.method} ${p.path}`).join(', ')}`, async () => fuzzPages(await freshTarget('public'), settings));
} finally {
  log.stop();
  await server.close();
  await database.close();
  await fresh.drop();
}

if (failures.length) {
  say(`\n${failures.length} defect${failures.length === 1 ? '' : 's'} in ${checked} routes (replay with FUZZ_SEED=${settings.seed} FUZZ_RUNS=${settings.runs}):\n`);
  say(failures.join('\n\n'));
  process.exit(1);
}
say(`\nno defect found in ${checked} routes (FUZZ_SEED=${settings.seed}, FUZZ_RUNS=${settings.runs})`);
process.exit(0);
