import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, newClient, send, startApp } from './support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const FIELDS = ['id', 'name', 'default_currency', 'created_at', 'updated_at'].sort();

describe('workspace settings', () => {
  it("reads the key's own workspace with exactly its settings, and needs a key", async () => {
    const api = await newClient(app, `settings-${Date.now()}`);
    const res = await api.get('/workspace');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(FIELDS);
    expect(res.body).toMatchObject({ id: api.workspaceId, default_currency: 'USD' });
    expect((await send(`${app.url}/api/v1/workspace`, 'GET')).status).toBe(401);
    const gql = await api.graphql('{ workspace { id defaultCurrency } }');
    expect(gql.body.data.workspace).toEqual({ id: api.workspaceId, defaultCurrency: 'USD' });
  });

  it('changes the default currency, which new deals and payment links then use; other workspaces keep theirs', async () => {
    const api = await newClient(app);
    const other = await newClient(app);
    const res = await api.put('/workspace', { default_currency: 'EUR', name: 'renamed', id: 'x' });
    expect(res.status).toBe(200);
    // Unknown and response-only fields are ignored; the name is not a setting a key may change.
    expect(res.body).toMatchObject({ id: api.workspaceId, name: expect.not.stringMatching(/^renamed$/), default_currency: 'EUR' });
    expect((await api.get('/workspace')).body).toEqual(res.body);
    expect((await other.get('/workspace')).body.default_currency).toBe('USD');

    const p = (await api.post('/pipelines', { name: 'Sales', stages: [{ name: 'Lead' }] })).body;
    const user = (await api.post('/users', { name: 'Owner', email: 'o@example.com' })).body;
    const deal = await api.post('/deals', { name: 'D', deal_stage_external_id: p.stages[0].external_id, user_id: user.id });
    expect(deal.body.currency).toBe('EUR');
    const account = (await api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'test' })).body;
    const link = await api.post('/payment-links', { name: 'Plan', payment_provider_account_id: account.id });
    expect(link.body.currency).toBe('EUR');

    const viaGraphQL = await api.graphql('mutation { updateWorkspace(input: { defaultCurrency: "JPY" }) { defaultCurrency } }');
    expect(viaGraphQL.body.data.updateWorkspace).toEqual({ defaultCurrency: 'JPY' });
    // A deal keeps the currency it was created in (API.md section 10); new ones take the new default.
    expect((await api.get(`/deals/${deal.body.id}`)).body.currency).toBe('EUR');
    const later = await api.post('/deals', { name: 'D2', deal_stage_external_id: p.stages[0].external_id, user_id: user.id });
    expect([later.status, later.body.currency]).toEqual([201, 'JPY']);
  });

  it('refuses a currency that is not ISO 4217 in upper case, and changes nothing', async () => {
    const api = await newClient(app);
    for (const [value, message] of [
      ['eur', 'The default currency field must be an ISO 4217 currency code in upper case.'],
      ['XYZ', 'The default currency field must be an ISO 4217 currency code in upper case.'],
      [5, 'The default currency field must be a string.'],
      ['E\u0000R', 'The default currency field must not contain NUL characters.'],
    ] as const) {
      const res = await api.put('/workspace', { default_currency: value });
      expect([res.status, res.body]).toEqual([422, { message: 'The given data was invalid.', errors: { default_currency: [message] } }]);
    }
    expect((await api.put('/workspace', { default_currency: null })).body.errors).toEqual({ default_currency: ['The default currency field is required.'] });
    expect((await api.get('/workspace')).body.default_currency).toBe('USD');
    // An empty body changes nothing and answers the settings.
    expect((await api.put('/workspace', {})).body.default_currency).toBe('USD');
  });
});
