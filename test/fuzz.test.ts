import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { publicRoutes, restRoutes } from '../src/modules/index.js';
import { type TestApp, startApp } from './support/app.js';
import {
  type LogCapture,
  PAGES,
  type Target,
  captureServerLog,
  fuzzGraphQL,
  fuzzPages,
  fuzzRestRoute,
  fuzzSettings,
  newApi,
  seedPublic,
  seedWorkspace,
} from './support/fuzz.js';
import { snapshotWorkspace } from './support/snapshot.js';

// Property-based fuzzing of every route of the REST table, of POST /graphql, of the
// public routes (no key: the payer's API and the providers' signed webhooks) and of
// the payer's /pay/ pages; the generators and the properties are in test/support/fuzz.ts:
// - never a 5xx (nor a GraphQL INTERNAL_SERVER_ERROR);
// - every error body is a JSON object with a string `message` (GraphQL: every error
//   has a message and an extensions.code);
// - a refused request changes nothing in the workspace (every row, links included);
// - the /pay/ pages: never a 5xx, and every answer but a redirect is text/html.
// The public routes get a workspace of their own (seedPublic: a `test` provider
// account, an active link, a coupon, a checkout) whose credentials fill their paths;
// the webhook route is also sent correctly signed requests with hostile bodies.
// Fixed seed and bounded runs here; FUZZ_SEED and FUZZ_RUNS override them, and
// `npm run fuzz` runs long. A failure prints fast-check's shrunk counterexample (the
// route and the request), the status, and what the server logged for it; each
// route reports up to three distinct defects per kind of hostility.

const settings = fuzzSettings();
/** Per route: five properties, and the shrinking of any that fail. */
const ROUTE_TIMEOUT_MS = 30_000 + settings.runs * 3_000 + 3 * settings.shrinkMs;
/** The public routes face anyone: more batches each (there are few of them). */
const PUBLIC_RUNS = settings.runs * 4;
const PAGE_RUNS = settings.runs * 12;

let app: TestApp;
let log: LogCapture;
interface Held {
  target: Target;
  seededState: unknown;
}
/** Seeded workspaces that a route left as seeded, by seed: the next route may reuse them. */
const idle: Record<'keyed' | 'public', Held[]> = { keyed: [], public: [] };

beforeAll(async () => {
  // Without the public rate limit (60 a minute per address by default): the public routes are fuzzed from one address.
  app = await startApp({ server: { PUBLIC_RATE_LIMIT_PER_MINUTE: 0 } });
  log = captureServerLog();
});
afterAll(async () => {
  log?.stop();
  await app?.close();
});

async function acquire(kind: keyof typeof idle = 'keyed'): Promise<Held> {
  const reused = idle[kind].pop();
  if (reused) return reused;
  const api = await newApi(app);
  const target: Target = { api, database: app.database, seeded: await (kind === 'keyed' ? seedWorkspace(api) : seedPublic(api)), log };
  return { target, seededState: await snapshotWorkspace(app.database, api.workspaceId) };
}

async function release(held: Held, kind: keyof typeof idle = 'keyed') {
  if (isDeepStrictEqual(await snapshotWorkspace(app.database, held.target.api.workspaceId), held.seededState)) idle[kind].push(held);
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

describe('every public route survives hostile paths, query strings, bodies and headers', () => {
  // Up to six properties (`signed` for the webhook route), each with its shrinking.
  it.each(publicRoutes.map((r) => [`${r.method} /api/v1${r.path}`, r] as const))('%s', { timeout: 30_000 + 6 * (PUBLIC_RUNS * 600 + 3 * settings.shrinkMs) }, async (_label, route) => {
    const held = await acquire('public');
    try {
      fail(await fuzzRestRoute(route, held.target, { ...settings, runs: PUBLIC_RUNS }, { keyless: true }));
    } finally {
      await release(held, 'public');
    }
  });

  it(`the pages: ${PAGES.map((p) => `${p.method} ${p.path}`).join(', ')}`, { timeout: 30_000 + PAGE_RUNS * 1_000 + 3 * settings.shrinkMs }, async () => {
    const held = await acquire('public');
    try {
      fail(await fuzzPages(held.target, { ...settings, runs: PAGE_RUNS }));
    } finally {
      await release(held, 'public');
    }
  });
});
