import { once } from 'node:events';
import { type Socket, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, newClient, send, startApp } from './support/app.js';

// The HTTP server's own limits, answered with the API's JSON bodies.
let app: TestApp;
let key: string;
beforeAll(async () => {
  app = await startApp({ server: { MAX_CONNECTIONS: 3, REQUEST_TIMEOUT_SECONDS: 1, HEADERS_TIMEOUT_SECONDS: 1 } });
  key = (await newClient(app)).key;
});
afterAll(() => app.close());


/** A raw connection to the test server. */
async function open(): Promise<Socket> {
  const { port: p } = new URL(app.url);
  const socket = connect(Number(p), '127.0.0.1');
  await once(socket, 'connect');
  return socket;
}

/** Everything the server sends until it closes the connection. */
async function readAll(socket: Socket): Promise<string> {
  let text = '';
  socket.on('data', (d) => (text += d));
  await once(socket, 'close');
  return text;
}

const jsonBody = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

describe('HTTP limits', () => {
  it('cuts off a request whose body stalls, with 408 and a JSON body', async () => {
    const socket = await open();
    const reply = readAll(socket);
    socket.write(`POST /api/v1/products HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`);
    const raw = await reply;
    expect(raw).toMatch(/^HTTP\/1\.1 408 /);
    expect(jsonBody(raw)).toEqual({ message: 'Request timeout.' });
  });

  it('answers oversized headers with 431 and a JSON body', async () => {
    const socket = await open();
    const reply = readAll(socket);
    socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Junk: ${'a'.repeat(20_000)}\r\n\r\n`);
    const raw = await reply;
    expect(raw).toMatch(/^HTTP\/1\.1 431 /);
    expect(jsonBody(raw)).toEqual({ message: 'Request headers too large.' });
  });

  it('answers a malformed request line with 400 and a JSON body', async () => {
    const socket = await open();
    const reply = readAll(socket);
    socket.write('NOT HTTP AT ALL\r\n\r\n');
    const raw = await reply;
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(jsonBody(raw)).toEqual({ message: 'Bad request.' });
  });

  it('refuses connections beyond the cap, and serves again once one closes', async () => {
    const held = [await open(), await open(), await open()];
    const extra = await open();
    const refused = readAll(extra);
    extra.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await refused).toBe('');
    held[0]!.destroy();
    await once(held[0]!, 'close');
    const res = await fetch(`${app.url}/healthz`, { headers: { Connection: 'close' } });
    expect(res.status).toBe(200);
    for (const socket of held.slice(1)) socket.destroy();
  });

  it('closes the connection after answering a request whose body it did not read (a 401), so the body is never taken for the next request', async () => {
    const socket = await open();
    const reply = readAll(socket);
    const body = JSON.stringify({ query: '{ products { total } }' });
    socket.write(`POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    const raw = await reply;
    expect(raw).toMatch(/^HTTP\/1\.1 401 /);
    expect(raw.toLowerCase()).toContain('connection: close');
  });

  it('keeps the connection open after a request whose body it read: a REST write, a GraphQL POST', async () => {
    const headers = { 'X-Api-Key': key };
    const created = await send(`${app.url}/api/v1/users`, 'POST', { headers, body: { name: 'K', email: 'keep-alive@example.com' } });
    expect([created.status, created.headers.get('connection')]).toEqual([201, 'keep-alive']);
    const graphql = await send(`${app.url}/graphql`, 'POST', { headers, body: { query: '{ users { total } }' } });
    expect([graphql.status, graphql.headers.get('connection')]).toEqual([200, 'keep-alive']);
  });

  it('keeps the connection open after a request that sent no body (a DELETE, a preflight), even unread', async () => {
    const answered = await send(`${app.url}/api/v1/products/01JUNKJUNKJUNKJUNKJUNKJUNK`, 'DELETE', { headers: { 'X-Api-Key': key } });
    expect([answered.status, answered.headers.get('connection')]).toEqual([404, 'keep-alive']);
    const preflight = await send(`${app.url}/api/v1/products`, 'OPTIONS', { headers: { Origin: 'http://elsewhere.example', 'Access-Control-Request-Method': 'GET' } });
    expect([preflight.status, preflight.headers.get('connection')]).toEqual([204, 'keep-alive']);
  });
});
