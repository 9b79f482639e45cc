import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey } from '../src/auth/api-keys.js';
import { type TestApp, countStatements, newClient, startApp } from './support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

describe('the API key on the hot path', () => {
  it('costs no database round trip once known: a read by id is one SQL statement', async () => {
    // A recheck bound no slow machine reaches between the two requests (the default, 2 s, could be).
    const patient = await startApp({ server: { keyRecheckMs: 3_600_000 } });
    try {
      const api = await newClient(patient);
      const product = (await api.post('/products', { name: 'P', type: 'product', price: 1, currency: 'USD', unit: 'u' })).body;
      expect(await countStatements(patient, () => api.get(`/products/${product.id}`), { keyStatements: true })).toBe(1);
      expect(await countStatements(patient, () => api.graphql('query($id: ID!) { product(id: $id) { id } }', { id: product.id }), { keyStatements: true })).toBe(1);
    } finally {
      await patient.close();
    }
  });

  it('never remembers an unknown key: each guess is looked up, and refused', async () => {
    const api = await newClient(app);
    const guess = { ...api, key: `sg_${'x'.repeat(40)}` };
    for (let i = 0; i < 2; i++) {
      const statements = await countStatements(app, async () => {
        const res = await fetch(`${app.url}/api/v1/products`, { headers: { 'X-Api-Key': guess.key } });
        expect(res.status).toBe(401);
      }, { keyStatements: true });
      expect(statements).toBe(1);
    }
  });

  it('refuses a revoked key within the recheck bound, in a running server', async () => {
    const api = await newClient(app);
    expect((await api.get('/products')).status).toBe(200);
    expect((await revokeKey(app.database.prisma, api.key.slice(0, 11))).revoked).toBe(1);
    // Polled, not slept: the bound is 2 s (KEY_RECHECK_MS); 10 s only guards against a hang.
    const deadline = Date.now() + 10_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) status = (await api.get('/products')).status;
    expect(status).toBe(401);
  });
});
