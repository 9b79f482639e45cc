import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { type Client, type TestApp, countStatements, newClient, send, startApp } from './support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

/**
 * A pipeline whose stage order is not alphabetical: Zeta (50%), Alpha (12.5%), Empty
 * (0%, never holds a deal), with two owners, Bob and Ann.
 */
async function pipelineOf(api: Client) {
  const pipeline = (await api.post('/pipelines', { name: 'Sales', stages: [{ name: 'Zeta', probability: 50 }, { name: 'Alpha', probability: 12.5 }, { name: 'Empty' }] })).body;
  const [zeta, alpha] = pipeline.stages;
  const bob = (await api.post('/users', { name: 'Bob', email: `bob-${Math.random()}@x.io` })).body;
  const ann = (await api.post('/users', { name: 'Ann', email: `ann-${Math.random()}@x.io` })).body;
  const deal = async (stage: { external_id: string }, user: { id: string }, value: number, close: string | null = null) => {
    const res = await api.post('/deals', { name: 'D', estimated_value: value, deal_stage_external_id: stage.external_id, user_id: user.id, expected_close_date: close });
    expect(res.status).toBe(201);
    return res.body;
  };
  return { pipeline, zeta, alpha, bob, ann, deal };
}

/** Each query string is 422 with exactly its errors. */
async function expectRefused(api: Client, path: string, cases: [string, Record<string, string[]>][]) {
  for (const [query, errors] of cases) {
    const res = await api.get(`${path}?${query}`);
    expect([query, res.status, res.body.errors]).toEqual([query, 422, errors]);
  }
}

const stageGroup = (s: { id: string; external_id: string; name: string }) => ({ id: s.id, external_id: s.external_id, name: s.name });

describe('GET /reports/pipeline', () => {
  it('sums per stage and currency exactly, in pipeline order, the weighted total rounded half up once per group', async () => {
    const api = await newClient(app);
    const { pipeline, zeta, alpha, bob, deal } = await pipelineOf(api);
    // As floats 0.1 + 0.2 + 0.05 is 0.35000000000000003; half of 0.35 is 0.175, which rounds up to 0.18.
    for (const value of [0.1, 0.2, 0.05]) await deal(zeta, bob, value);
    await api.put('/workspace', { default_currency: 'JPY' });
    // 12.5% of 101 yen is 12.625 yen: 13 (yen have no minor unit).
    await deal(alpha, bob, 101);
    await api.put('/workspace', { default_currency: 'EUR' });
    await deal(zeta, bob, 1.1);

    const res = await api.get(`/reports/pipeline?pipeline_id=${pipeline.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { group: stageGroup(zeta), currency: 'EUR', count: 1, total: 1.1, weighted_total: 0.55 },
        { group: stageGroup(zeta), currency: 'USD', count: 3, total: 0.35, weighted_total: 0.18 },
        { group: stageGroup(alpha), currency: 'JPY', count: 1, total: 101, weighted_total: 13 },
      ],
    });
    // The default pipeline when none is named, and the same through GraphQL (camelCase fields).
    expect((await api.get('/reports/pipeline')).body).toEqual(res.body);
    const gql = await api.graphql(`{ dealReport(filter: { pipelineId: "${pipeline.id}" }) { data { group currency count total weightedTotal } } }`);
    expect(gql.body.data.dealReport.data).toEqual(res.body.data.map(({ weighted_total, ...row }: Record<string, unknown>) => ({ ...row, weightedTotal: weighted_total })));
  });

  it('by owner: names in order, one weighted total per group over its stages (rounded once, not per stage)', async () => {
    const api = await newClient(app);
    const { pipeline, zeta, alpha, bob, ann, deal } = await pipelineOf(api);
    // Ann: 50% of 0.05 + 12.5% of 0.05 = 0.025 + 0.00625 = 0.03125 -> 0.03 (per stage it would be 0.03 + 0.01).
    await deal(zeta, ann, 0.05);
    await deal(alpha, ann, 0.05);
    await deal(alpha, bob, 8);
    const res = await api.get(`/reports/pipeline?pipeline_id=${pipeline.id}&group_by=user`);
    expect([res.status, res.body]).toEqual([
      200,
      {
        data: [
          { group: { id: ann.id, name: 'Ann' }, currency: 'USD', count: 2, total: 0.1, weighted_total: 0.03 },
          { group: { id: bob.id, name: 'Bob' }, currency: 'USD', count: 1, total: 8, weighted_total: 1 },
        ],
      },
    ]);
    // Filtered to one owner.
    expect((await api.get(`/reports/pipeline?pipeline_id=${pipeline.id}&group_by=user&user_id=${bob.id}`)).body.data).toEqual([res.body.data[1]]);
  });

  it('by expected close month, ascending, deals without a date last; date and creation filters', async () => {
    const api = await newClient(app);
    const { pipeline, zeta, bob, deal } = await pipelineOf(api);
    const early = await deal(zeta, bob, 10, '2026-01-15');
    await deal(zeta, bob, 20, '2026-01-31');
    await deal(zeta, bob, 40, '2026-03-01');
    await deal(zeta, bob, 80, null);
    await app.database.prisma.deal.update({ where: { id: early.id }, data: { createdAt: new Date('2020-01-01T00:00:00.000Z') } });
    const path = `/reports/pipeline?pipeline_id=${pipeline.id}&group_by=expected_close_month`;
    expect((await api.get(path)).body).toEqual({
      data: [
        { group: '2026-01', currency: 'USD', count: 2, total: 30, weighted_total: 15 },
        { group: '2026-03', currency: 'USD', count: 1, total: 40, weighted_total: 20 },
        { group: null, currency: 'USD', count: 1, total: 80, weighted_total: 40 },
      ],
    });
    expect((await api.get(`${path}&expected_close_from=2026-01-20&expected_close_to=2026-03-01`)).body.data).toEqual([
      { group: '2026-01', currency: 'USD', count: 1, total: 20, weighted_total: 10 },
      { group: '2026-03', currency: 'USD', count: 1, total: 40, weighted_total: 20 },
    ]);
    expect((await api.get(`${path}&created_since=2025-01-01T00:00:00.000Z`)).body.data.map((r: { count: number }) => r.count)).toEqual([1, 1, 1]);
  });

  it('answers an empty list for a pipeline without deals, and for a workspace without pipelines', async () => {
    const api = await newClient(app);
    expect([(await api.get('/reports/pipeline')).status, (await api.get('/reports/pipeline')).body]).toEqual([200, { data: [] }]);
    const { pipeline } = await pipelineOf(api);
    expect((await api.get(`/reports/pipeline?pipeline_id=${pipeline.id}&group_by=user`)).body).toEqual({ data: [] });
  });

  it('refuses bad parameters with 422, and never reads another workspace', async () => {
    const api = await newClient(app);
    const other = await newClient(app);
    const { pipeline, bob } = await pipelineOf(other);
    const cases: [string, Record<string, string[]>][] = [
      ['group_by=owner', { group_by: ['The selected group by is invalid.'] }],
      [`pipeline_id=${pipeline.id}`, { pipeline_id: ['The selected pipeline id is invalid.'] }],
      [`user_id=${bob.id}`, { user_id: ['The selected user id is invalid.'] }],
      ['expected_close_from=2026-02-30', { expected_close_from: ['The expected close from field must be a valid date.'] }],
      ['expected_close_from=2026-03-01&expected_close_to=2026-02-01', { expected_close_to: ['The expected close to field must be a date after or equal to expected close from.'] }],
      ['created_since=yesterday', { created_since: ['The created since field must be a valid date.'] }],
      ['colour=red', { colour: ['The colour parameter is not supported.'] }],
    ];
    await pipelineOf(api);
    await expectRefused(api, '/reports/pipeline', cases);
  });
});

describe('GET /reports/payments', () => {
  async function transactions(api: Client) {
    const account = (await api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'stripe' })).body;
    const zed = (await api.post('/payment-links', { name: 'Zed plan', payment_provider_account_id: account.id })).body;
    const abc = (await api.post('/payment-links', { name: 'Abc plan', payment_provider_account_id: account.id })).body;
    const pay = async (link: { id: string }, amount: number, currency: string, status: string, at: string) => {
      const res = await api.post('/payment-transactions', { payment_link_id: link.id, provider_reference: `pi_${Math.random()}`, amount, currency, status });
      expect(res.status).toBe(201);
      await app.database.prisma.paymentTransaction.update({ where: { id: res.body.id }, data: { createdAt: new Date(at) } });
    };
    // Sunday 2026-03-01 belongs to the week of Monday 2026-02-23; Monday 2026-03-02 starts the next.
    await pay(zed, 0.1, 'USD', 'paid', '2026-03-01T23:59:59.999Z');
    await pay(zed, 0.2, 'USD', 'paid', '2026-03-02T00:00:00.000Z');
    await pay(abc, 0.05, 'USD', 'failed', '2026-03-02T10:00:00.000Z');
    await pay(abc, 7, 'EUR', 'pending', '2026-02-10T10:00:00.000Z');
    return { zed, abc };
  }

  it('sums per month (by default), week, day, status and link, per currency, exactly', async () => {
    const api = await newClient(app);
    const { zed, abc } = await transactions(api);
    const get = async (query: string) => {
      const res = await api.get(`/reports/payments${query}`);
      expect([query, res.status]).toEqual([query, 200]);
      return res.body.data;
    };
    expect(await get('')).toEqual([
      { group: '2026-02', currency: 'EUR', count: 1, total: 7 },
      { group: '2026-03', currency: 'USD', count: 3, total: 0.35 },
    ]);
    expect(await get('?group_by=week')).toEqual([
      { group: '2026-02-09', currency: 'EUR', count: 1, total: 7 },
      { group: '2026-02-23', currency: 'USD', count: 1, total: 0.1 },
      { group: '2026-03-02', currency: 'USD', count: 2, total: 0.25 },
    ]);
    expect(await get('?group_by=day')).toEqual([
      { group: '2026-02-10', currency: 'EUR', count: 1, total: 7 },
      { group: '2026-03-01', currency: 'USD', count: 1, total: 0.1 },
      { group: '2026-03-02', currency: 'USD', count: 2, total: 0.25 },
    ]);
    // Statuses in the contract's order (pending, processing, paid, failed, ...).
    expect(await get('?group_by=status')).toEqual([
      { group: 'pending', currency: 'EUR', count: 1, total: 7 },
      { group: 'paid', currency: 'USD', count: 2, total: 0.3 },
      { group: 'failed', currency: 'USD', count: 1, total: 0.05 },
    ]);
    expect(await get('?group_by=payment_link')).toEqual([
      { group: { id: abc.id, name: 'Abc plan' }, currency: 'EUR', count: 1, total: 7 },
      { group: { id: abc.id, name: 'Abc plan' }, currency: 'USD', count: 1, total: 0.05 },
      { group: { id: zed.id, name: 'Zed plan' }, currency: 'USD', count: 2, total: 0.3 },
    ]);
    // Filters: days inclusive (UTC), status, currency.
    expect(await get('?group_by=day&from=2026-03-01&to=2026-03-01')).toEqual([{ group: '2026-03-01', currency: 'USD', count: 1, total: 0.1 }]);
    expect(await get('?status=paid')).toEqual([{ group: '2026-03', currency: 'USD', count: 2, total: 0.3 }]);
    expect(await get('?currency=EUR&group_by=status')).toEqual([{ group: 'pending', currency: 'EUR', count: 1, total: 7 }]);
    expect(await get('?from=2027-01-01')).toEqual([]);
    const gql = await api.graphql('{ paymentReport(filter: { groupBy: status, currency: "EUR" }) { data { group currency count total } } }');
    expect(gql.body).toEqual({ data: { paymentReport: { data: [{ group: 'pending', currency: 'EUR', count: 1, total: 7 }] } } });
  });

  it('refuses bad parameters with 422', async () => {
    const api = await newClient(app);
    const cases: [string, Record<string, string[]>][] = [
      ['group_by=year', { group_by: ['The selected group by is invalid.'] }],
      ['from=2026-13-01', { from: ['The from field must be a valid date.'] }],
      ['from=2026-03-02&to=2026-03-01', { to: ['The to field must be a date after or equal to from.'] }],
      ['status=done', { status: ['The selected status is invalid.'] }],
      ['currency=usd', { currency: ['The currency field must be an ISO 4217 currency code in upper case.'] }],
    ];
    await expectRefused(api, '/reports/payments', cases);
  });
});

describe('reports: SQL statements per request', () => {
  it('a fixed number whatever the data: the sums in one GROUP BY, and one read per kind of group', async () => {
    const api = await newClient(app);
    const { pipeline, zeta, alpha, bob, ann, deal } = await pipelineOf(api);
    for (const [stage, user] of [[zeta, bob], [alpha, ann], [zeta, ann]] as const) await deal(stage, user, 5, '2026-05-05');
    const count = (path: string) => countStatements(app, async () => expect((await api.get(path)).status).toBe(200));
    // The pipeline (named or the default), the sums, the stages; owners: the users too.
    expect(await count(`/reports/pipeline?pipeline_id=${pipeline.id}`)).toBe(3);
    expect(await count('/reports/pipeline?group_by=expected_close_month')).toBe(3);
    expect(await count('/reports/pipeline?group_by=user')).toBe(4);
    // The sums; by link, the links too.
    expect(await count('/reports/payments?group_by=week')).toBe(1);
    expect(await count('/reports/payments?group_by=payment_link')).toBe(2);
  });
});

describe('reports and scopes', () => {
  it('the pipeline report needs deals:read, the payments report payment-transactions:read', async () => {
    const workspace = `ws-scopes-${Math.random()}`;
    const key = async (scopes: string[]) => (await createKey(app.database.prisma, workspace, 'scoped', { scopes })).key;
    const get = async (path: string, k: string) => (await send(`${app.url}/api/v1${path}`, 'GET', { headers: { 'X-Api-Key': k } })).status;
    const deals = await key(['deals:read']);
    const payments = await key(['payment-transactions:read']);
    const read = await key(['read']);
    expect([await get('/reports/pipeline', deals), await get('/reports/payments', deals)]).toEqual([200, 403]);
    expect([await get('/reports/pipeline', payments), await get('/reports/payments', payments)]).toEqual([403, 200]);
    expect([await get('/reports/pipeline', read), await get('/reports/payments', read)]).toEqual([200, 200]);
  });
});
