import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { logged } from './support/access-log.js';
import { freshDatabase } from './support/fresh-database.js';
import { startProcess } from './support/process.js';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';

let app: TestApp;
let api: Client;
beforeAll(async () => {
  app = await startApp({ server: { LOG_LEVEL: 'info' } });
  api = await newClient(app);
});
afterAll(() => app.close());

describe('the access log', () => {
  it('writes one line per request: method, route template, status, duration, request id, workspace, client address; never the key or the query', async () => {
    const created = (await api.post('/users', { name: 'Log', email: 'log@example.com' })).body;
    const lines = await logged(async () => {
      await api.request('GET', `/users/${created.id}?x=secret-term`, { headers: { 'X-Request-Id': 'req-log-1' } });
      await api.graphql('{ users { total } }');
      await send(`${app.url}/api/v1/users`, 'GET');
      await send(`${app.url}/nowhere`, 'GET');
    });
    expect(lines.map(({ time, duration_ms, request_id, ...rest }) => rest)).toEqual([
      { level: 'info', method: 'GET', route: 'GET /api/v1/users/{id}', status: 200, workspace_id: api.workspaceId, client_address: '127.0.0.1' },
      { level: 'info', method: 'POST', route: 'POST /graphql', status: 200, workspace_id: api.workspaceId, client_address: '127.0.0.1' },
      { level: 'info', method: 'GET', route: 'GET /api/v1/users', status: 401, client_address: '127.0.0.1' },
      { level: 'info', method: 'GET', route: 'unmatched', status: 404, client_address: '127.0.0.1' },
    ]);
    expect(lines[0]!.request_id).toBe('req-log-1');
    for (const line of lines) {
      expect(typeof line.duration_ms).toBe('number');
      expect(line.time).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    }
    const text = JSON.stringify(lines);
    expect(text).not.toContain(api.key);
    expect(text).not.toContain('secret-term');
    expect(text).not.toContain(created.id);
  });

  it('logs a request whose client went away mid-body as 499, with no error line, on both faces', async () => {
    const { port } = new URL(app.url);
    const seen: Record<string, unknown>[] = [];
    const write = process.stdout.write.bind(process.stdout);
    let arrived: (() => void) | undefined;
    process.stdout.write = ((chunk: string) => {
      const text = String(chunk);
      if (!text.includes('"req-gone-')) return write(chunk);
      seen.push(JSON.parse(text));
      arrived?.();
      return true;
    }) as typeof process.stdout.write;
    try {
      for (const [i, path] of ['/graphql', '/api/v1/contacts'].entries()) {
        const logged = new Promise<void>((resolve) => (arrived = resolve));
        const socket = connect(Number(port), '127.0.0.1');
        socket.on('error', () => {});
        await once(socket, 'connect');
        // A body announced at 1,000 bytes, 10 of them sent: the service is waiting for the rest when the client leaves.
        socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${api.key}\r\nX-Request-Id: req-gone-${i}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":"`);
        // Closed after the headers went out: the service sees the request, then its body end early.
        await new Promise((resolve) => setImmediate(resolve));
        socket.destroy();
        await logged;
      }
    } finally {
      process.stdout.write = write;
    }
    expect(seen.map(({ time, duration_ms, ...rest }) => rest)).toEqual([
      { level: 'info', request_id: 'req-gone-0', method: 'POST', route: 'POST /graphql', status: 499, workspace_id: api.workspaceId, client_address: '127.0.0.1' },
      { level: 'info', request_id: 'req-gone-1', method: 'POST', route: 'POST /api/v1/contacts', status: 499, workspace_id: api.workspaceId, client_address: '127.0.0.1' },
    ]);
  });

  it('follows LOG_LEVEL: warn drops the access log; an unknown level stops the start', async () => {
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(loadConfig({}).LOG_LEVEL).toBe('info');
    const db = await freshDatabase();
    const quiet = await startProcess({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' });
    try {
      const key = /\b(sg_[0-9A-Za-z]{32,})\b/.exec(quiet.output())![1]!;
      await send(`${quiet.url}/api/v1/users`, 'GET', { headers: { 'X-Api-Key': key } });
      await send(`${quiet.url}/nowhere`, 'GET');
      const output = quiet.output();
      expect(output).not.toContain('"duration_ms"');
    } finally {
      quiet.child.kill('SIGTERM');
      await once(quiet.child, 'exit');
      await db.drop();
    }
  });
});

