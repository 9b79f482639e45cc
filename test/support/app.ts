import { createKey } from '../../src/auth/api-keys.js';
import type { Config } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { resolveDatabase } from '../../src/db/database-url.js';
import { newId } from '../../src/db/ids.js';
import { type BackgroundConfig, startBackgroundWork } from '../../src/jobs/background.js';
import { type ListenConfig, listen } from '../../src/serve.js';
import { type Service, composeService } from '../../src/service.js';
import { type PaymentsConfig, createPayments } from '../../src/payments/payments.js';
import { loadConfig } from '../../src/config.js';
import { serviceSchema } from './schema.js';
import { type Reply, send } from './http.js';
import { databaseUrl } from './file-database.js';

export { type Reply, send };

/** The key the tests' services seal provider credentials with (never a file in the working tree). */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

export interface TestApp {
  url: string;
  database: Database;
  /** The parts the app was composed from (src/service.ts): background work a test starts beside it takes them too. */
  service: Service;
  provider: 'sqlite' | 'postgresql';
  close(): Promise<void>;
}

/** The real HTTP server on a free port, over this run's migrated database. */
export async function startApp(
  options: {
    rateLimitPerMinute?: number;
    databaseUrl?: string;
    corsOrigins?: string[];
    server?: Partial<ListenConfig>;
    /** Runs the process's background work (webhook deliveries, purge) beside the server, as main.ts does. */
    background?: Partial<BackgroundConfig>;
    /** Payment providers' settings (their API bases: the fakes); secrets sealed under TEST_SECRETS_KEY unless set. */
    payments?: Partial<PaymentsConfig>;
  } = {},
): Promise<TestApp> {
  const target = resolveDatabase(options.databaseUrl ?? databaseUrl());
  const database = await openDatabase(target, { statements: true, timings: options.server?.METRICS_TOKEN !== undefined });
  // listen() hands its whole config to createApp, as main.ts does with the parsed environment.
  const config: ListenConfig & Pick<Config, 'CORS_ORIGINS'> = { HOST: '127.0.0.1', PORT: 0, RATE_LIMIT_PER_MINUTE: options.rateLimitPerMinute ?? 100_000, LOG_LEVEL: 'warn', CORS_ORIGINS: options.corsOrigins ?? [], ...options.server };
  const service = composeService(database, serviceSchema, undefined, createPayments({ ...loadConfig({}), SECRETS_KEY: TEST_SECRETS_KEY, ...options.payments }));
  const running = await listen(service, config);
  const background = options.background && startBackgroundWork(service, { EVENT_RETENTION_DAYS: 30, WEBHOOK_ALLOW_PRIVATE_NETWORKS: true, ...options.background }, running.metrics);
  return {
    url: running.url,
    database,
    service,
    provider: target.provider,
    async close() {
      await Promise.all([running.close(), background?.stop()]);
      await database.close();
    },
  };
}

export interface Client {
  key: string;
  workspaceId: string;
  request<T = any>(method: string, path: string, options?: { body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Reply<T>>;
  get<T = any>(path: string): Promise<Reply<T>>;
  post<T = any>(path: string, body?: unknown): Promise<Reply<T>>;
  put<T = any>(path: string, body?: unknown): Promise<Reply<T>>;
  delete<T = any>(path: string): Promise<Reply<T>>;
  graphql<T = any>(query: string, variables?: Record<string, unknown>): Promise<Reply<T>>;
}

/** A fresh workspace with its own key, and a client that calls the API with it. */
export async function newClient(app: TestApp, workspace = `ws-${newId()}`): Promise<Client> {
  const created = await createKey(app.database.prisma, workspace, 'test');
  const request = (method: string, path: string, options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}) =>
    send(`${app.url}${path.startsWith('/graphql') ? '' : '/api/v1'}${path}`, method, { ...options, headers: { 'X-Api-Key': created.key, ...options.headers } });
  return {
    key: created.key,
    workspaceId: created.workspaceId,
    request,
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, { body: body ?? {} }),
    put: (path, body) => request('PUT', path, { body: body ?? {} }),
    delete: (path) => request('DELETE', path),
    graphql: (query, variables) => request('POST', '/graphql', { body: { query, variables } }),
  };
}

/**
 * Counts the SQL statements sent while `fn` runs. The API key's own statements are left
 * out unless asked for: a known key is read again every KEY_RECHECK_MS (one statement on
 * "ApiKey", its workspace joined) and its last-used time written once a minute, so on a
 * slow machine any request may carry them; they are the key cache's business
 * (test/api-key-cache.test.ts), not the route's. Nothing else the service sends depends
 * on the time, so the count is the same on a busy machine as on a quiet one.
 */
export async function countStatements(app: TestApp, fn: () => Promise<unknown>, options: { keyStatements?: boolean } = {}): Promise<number> {
  return (await sentStatements(app, fn, options)).length;
}

/** The SQL statements sent while `fn` runs, the API key's left out as `countStatements` does. */
export async function sentStatements(app: TestApp, fn: () => Promise<unknown>, options: { keyStatements?: boolean } = {}): Promise<string[]> {
  const sent: string[] = [];
  app.database.onStatement((sql) => {
    if (options.keyStatements || !/["`]ApiKey["`]/.test(sql)) sent.push(sql);
  });
  try {
    await fn();
  } finally {
    app.database.onStatement(undefined);
  }
  return sent;
}
