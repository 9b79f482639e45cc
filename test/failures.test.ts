import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, newClient, send, startApp } from './support/app.js';

// A server whose database does not answer (nothing listens on port 1): the
// unexpected-failure path, end to end, on a real server.
let healthy: TestApp;
let broken: TestApp;
let key: string;
beforeAll(async () => {
  healthy = await startApp();
  key = (await newClient(healthy)).key;
  broken = await startApp({ databaseUrl: 'postgresql://postgres@127.0.0.1:1/nowhere' });
});
afterAll(async () => {
  await broken.close().catch(() => {});
  await healthy.close();
});

describe('unexpected failures', () => {
  it('answer 500 with a masked message, never internals; /readyz says 503 and which check failed, /healthz 200', async () => {
    const rest = await send(`${broken.url}/api/v1/products`, 'GET', { headers: { 'X-Api-Key': key } });
    expect(rest.status).toBe(500);
    expect(rest.body).toEqual({ message: 'Server error.' });
    expect(rest.headers.get('x-request-id')).toBeTruthy();
    const ready = await send(`${broken.url}/readyz`, 'GET');
    expect({ status: ready.status, body: ready.body }).toEqual({ status: 503, body: { message: 'Service unavailable.', checks: { database: 'down' } } });
    // Liveness touches no dependency: a database outage is no reason to restart the process.
    const live = await send(`${broken.url}/healthz`, 'GET');
    expect({ status: live.status, body: live.body }).toEqual({ status: 200, body: { status: 'ok' } });
    const healthyReady = await send(`${healthy.url}/readyz`, 'GET');
    expect({ status: healthyReady.status, body: healthyReady.body }).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok' } } });
    const gql = await send(`${broken.url}/graphql`, 'POST', { body: { query: '{ products { total } }' }, headers: { 'X-Api-Key': key } });
    expect(gql.status).toBe(500);
    expect(gql.body.errors[0]).toMatchObject({ message: 'Server error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(JSON.stringify(gql.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack|at /);
  });
});
