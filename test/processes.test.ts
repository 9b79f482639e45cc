import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from './support/app.js';
import { cli } from './support/cli.js';
import { runCli as run, startProcess as start } from './support/process.js';
import { freshDatabase } from './support/fresh-database.js';
import { noSuchWorkspace } from '../src/db/workspaces.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.drop());

describe('the service process', () => {
  it('migrates, creates a workspace and prints its key once, serves, and stops cleanly on SIGTERM', async () => {
    const first = await start({ DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0' });
    const key = /\b(sg_[0-9A-Za-z]{32,})\b/.exec(first.output())?.[1];
    expect(key).toBeDefined();
    expect((await send(`${first.url}/healthz`, 'GET')).body).toEqual({ status: 'ok' });
    const listed = await send(`${first.url}/api/v1/products`, 'GET', { headers: { 'X-Api-Key': key! } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-ratelimit-limit')).toBeNull();
    first.child.kill('SIGTERM');
    expect((await once(first.child, 'exit'))[0]).toBe(0);
    expect(first.stdout()).toContain('SIGTERM: draining for 0 s, then finishing in-flight requests');

    // A SIGTERM sent the moment the listening line is read is graceful too (the handler is set before that line).
    const second = await start({ DATABASE_URL: db.url });
    expect(second.output()).not.toMatch(/sg_[0-9A-Za-z]{32,}/);
    second.child.kill('SIGTERM');
    expect((await once(second.child, 'exit'))[0]).toBe(0);
    expect(second.stdout()).toContain('SIGTERM: draining for 0 s, then finishing in-flight requests');
  });

  it('two processes started at once on an empty database make one workspace and one first key between them, and both serve', async () => {
    const empty = await freshDatabase();
    const started = await Promise.allSettled([start({ DATABASE_URL: empty.url }), start({ DATABASE_URL: empty.url })]);
    const both = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      expect(both).toHaveLength(2);
      const printed = both.flatMap((p) => [...p.output().matchAll(/\b(sg_[0-9A-Za-z]{32,})\b/g)].map((m) => m[1]!));
      expect(printed).toHaveLength(1);
      for (const p of both) expect((await send(`${p.url}/api/v1/products`, 'GET', { headers: { 'X-Api-Key': printed[0]! } })).status).toBe(200);
      const keys = await run(['keys', 'list', '--workspace', 'default'], { DATABASE_URL: empty.url });
      expect(keys.stdout.trim().split('\n')).toHaveLength(1);
    } finally {
      // Stopped whatever the outcome: a failed expectation must not leave the processes running.
      const codes = await Promise.all(both.map((p) => p.stop()));
      await empty.drop();
      expect(codes).toEqual(both.map(() => 0));
    }
  });

  it('manages keys from the command line; a revoked key is refused by the running service within the recheck bound', async () => {
    const env = { DATABASE_URL: db.url };
    const created = await run(['keys', 'create', '--workspace', 'cli-test', '--name', 'ci', '--json'], env);
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const parsed = JSON.parse(lines[0]!);
    expect(Object.keys(parsed).sort()).toEqual(['key', 'workspace_id']);
    expect(parsed.key).toMatch(/^sg_[0-9A-Za-z]{32,}$/);

    // The rest run the same commands in this process (test/support/cli.ts): the process itself is checked above.
    const again = JSON.parse((await cli(['keys', 'create', '--workspace', 'cli-test', '--json'], env)).stdout);
    expect(again.workspace_id).toBe(parsed.workspace_id);

    const listed = await cli(['keys', 'list', '--workspace', 'cli-test'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(2);
    expect(listed.stdout).toContain(parsed.key.slice(0, 11));
    expect(listed.stdout).not.toContain(parsed.key);

    // No rate limit: the poll below may send many requests within the 2 s bound.
    const server = await start({ ...env, RATE_LIMIT_PER_MINUTE: '0' });
    try {
      const call = () => send(`${server.url}/api/v1/contacts`, 'GET', { headers: { 'X-Api-Key': parsed.key } });
      expect((await call()).status).toBe(200);
      const revoked = await cli(['keys', 'revoke', parsed.key.slice(0, 11)], env);
      expect(revoked.code).toBe(0);
      // The service rechecks a known key every 2 s (KEY_RECHECK_MS). Polled, not slept; 10 s only guards against a hang.
      const deadline = Date.now() + 10_000;
      let status = 200;
      while (status === 200 && Date.now() < deadline) status = (await call()).status;
      expect(status).toBe(401);
      expect((await send(`${server.url}/api/v1/contacts`, 'GET', { headers: { 'X-Api-Key': again.key } })).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
    expect((await cli(['keys', 'revoke', 'sg_nothing'], env)).code).toBe(1);
    expect((await cli(['migrate'], env)).code).toBe(0);
  });

  it('shows and changes workspace settings from the command line, under the API rules', async () => {
    const env = { DATABASE_URL: db.url };
    const { workspace_id } = JSON.parse((await cli(['keys', 'create', '--workspace', 'settings-cli', '--json'], env)).stdout);
    const shown = await cli(['workspaces', 'show', 'settings-cli', '--json'], env);
    expect([shown.code, JSON.parse(shown.stdout)]).toEqual([0, { id: workspace_id, name: 'settings-cli', default_currency: 'USD', updated_at: expect.any(String) }]);

    const set = await cli(['workspaces', 'set', 'settings-cli', '--default-currency', 'EUR', '--json'], env);
    expect([set.code, JSON.parse(set.stdout).default_currency]).toEqual([0, 'EUR']);
    const bad = await cli(['workspaces', 'set', 'settings-cli', '--default-currency', 'eur'], env);
    expect([bad.code, bad.stdout, bad.stderr.trim().split('\n').at(-1)]).toEqual([1, '', 'The --default-currency value must be an ISO 4217 currency code in upper case.']);
    const unknown = await cli(['workspaces', 'set', 'no-such-workspace', '--default-currency', 'EUR'], env);
    expect([unknown.code, unknown.stderr.trim().split('\n').at(-1)]).toEqual([2, noSuchWorkspace('no-such-workspace')]);
    const usage = await cli(['workspaces', 'set', 'settings-cli'], env);
    expect(usage.code).toBe(2);
    expect((await cli(['workspaces', 'show', 'settings-cli'], env)).stdout).toBe(`Workspace ${workspace_id} "settings-cli": default currency EUR\n`);
  });
});
