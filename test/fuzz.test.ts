import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { restRoutes } from '../src/modules/index.js';
import { type TestApp, startApp } from './support/app.js';
import { type LogCapture, type Target, captureServerLog, fuzzGraphQL, fuzzRestRoute, fuzzSettings, newApi, seedWorkspace, snapshotWorkspace } from './support/fuzz.js';

// Property-based fuzzing of every route of the REST table and of POST /graphql; the
// generators and the properties are in test/support/fuzz.ts:
// - never a 5xx (nor a GraphQL INTERNAL_SERVER_ERROR);
// - every error body is a JSON object with a string `message` (GraphQL: every error
//   has a message and an extensions.code);
// - a refused request changes nothing in the workspace (every row, links included).
// Fixed seed and bounded runs here; FUZZ_SEED and FUZZ_RUNS override them, and
// `npm run fuzz` runs long. A failure prints fast-check's shrunk counterexample (the
// route and the request), the status, and what the server logged for it; each
// route reports up to three distinct defects per kind of hostility.

const settings = fuzzSettings();
/** Per route: five properties, and the shrinking of any that fail. */
const ROUTE_TIMEOUT_MS = 30_000 + settings.runs * 3_000 + 3 * settings.shrinkMs;

let app: TestApp;
let log: LogCapture;
/** Seeded workspaces that a route left as seeded: the next route may reuse them. */
const idle: { target: Target; seededState: unknown }[] = [];

beforeAll(async () => {
  app = await startApp();
  log = captureServerLog();
});
afterAll(async () => {
  log?.stop();
  await app?.close();
});

async function acquire(): Promise<{ target: Target; seededState: unknown }> {
  const reused = idle.pop();
  if (reused) return reused;
  const api = await newApi(app);
  const target: Target = { api, database: app.database, seeded: await seedWorkspace(api), log };
  return { target, seededState: await snapshotWorkspace(app.database, api.workspaceId) };
}

async function release(held: { target: Target; seededState: unknown }) {
  if (isDeepStrictEqual(await snapshotWorkspace(app.database, held.target.api.workspaceId), held.seededState)) idle.push(held);
}

const fail = (reports: string[]) => {
  if (reports.length) throw new Error(`${reports.length} defect${reports.length === 1 ? '' : 's'} found (FUZZ_SEED=${settings.seed}, FUZZ_RUNS=${settings.runs}):\n\n${reports.join('\n\n')}`);
};

describe('every REST route survives hostile paths, query strings, bodies and headers', () => {
  it.each(restRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', { timeout: ROUTE_TIMEOUT_MS }, async (_label, route) => {
    const held = await acquire();
    try {
      fail(await fuzzRestRoute(route, held.target, settings));
    } finally {
      await release(held);
    }
  });
});

describe('POST /graphql', () => {
  it('survives hostile documents, variables and bodies', { timeout: 30_000 + settings.runs * 15_000 + 3 * settings.shrinkMs }, async () => {
    const held = await acquire();
    fail(await fuzzGraphQL(held.target, { ...settings, runs: settings.runs * 10 }));
  });
});
