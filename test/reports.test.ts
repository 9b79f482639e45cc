import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { compactReportTotals } from '../src/db/counter-slots.js';
import { scopeToWorkspace } from '../src/db/tenancy.js';
import { Prisma } from '../src/generated/sqlite/client.js';
import { DEAL_REPORT_GROUPS, PAYMENT_REPORT_GROUPS } from '../src/modules/reports/reports.input.js';
import { type DealSum, type DealSumsFilter, type PaymentSum, type PaymentSumsFilter, dealSums, dealSumsFromRows, paymentSums, paymentSumsFromRows } from '../src/modules/reports/reports.queries.js';
import { fromTenThousandths } from '../src/payments/money.js';
import { databaseUrl } from './support/file-database.js';
import { type Client, type TestApp, newClient, send, sentStatements, startApp } from './support/app.js';

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

  it('close dates at the calendar\'s ends with created_since: the cut months\' days are the calendar\'s, the last month of 9999 too', async () => {
    const api = await newClient(app);
    const { pipeline, zeta, bob, deal } = await pipelineOf(api);
    await deal(zeta, bob, 7, '9999-12-20');
    await deal(zeta, bob, 5, '0100-01-05');
    // Inside an hour (its deals read from the rows too), before every deal.
    const since = 'created_since=2000-01-01T00:10:00Z';
    const path = `/reports/pipeline?pipeline_id=${pipeline.id}&group_by=expected_close_month&${since}`;
    expect((await api.get(`${path}&expected_close_from=9999-12-15`)).body.data).toEqual([{ group: '9999-12', currency: 'USD', count: 1, total: 7, weighted_total: 3.5 }]);
    expect((await api.get(`${path}&expected_close_from=9999-12-21&expected_close_to=9999-12-31`)).body.data).toEqual([]);
    expect((await api.get(`${path}&expected_close_to=0100-01-10`)).body.data).toEqual([{ group: '0100-01', currency: 'USD', count: 1, total: 5, weighted_total: 2.5 }]);
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
    const account = (await api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'test' })).body;
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
    expect(await get('?group_by=payment_link&from=2026-03-02')).toEqual([
      { group: { id: abc.id, name: 'Abc plan' }, currency: 'USD', count: 1, total: 0.05 },
      { group: { id: zed.id, name: 'Zed plan' }, currency: 'USD', count: 1, total: 0.2 },
    ]);
    expect(await get('?group_by=payment_link&from=2026-02-10&to=2026-03-01')).toEqual([
      { group: { id: abc.id, name: 'Abc plan' }, currency: 'EUR', count: 1, total: 7 },
      { group: { id: zed.id, name: 'Zed plan' }, currency: 'USD', count: 1, total: 0.1 },
    ]);
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
  /** How many statements a request sent, and which tables its sums came from. */
  const sent = async (api: Client, path: string) => {
    const statements = await sentStatements(app, async () => expect((await api.get(path)).status).toBe(200));
    const read = ['"DealTotal"', '"DealCreatedTotal"', '"DealCreatedCloseTotal"', '"Deal"', '"PaymentDayTotal"', '"PaymentLinkTotal"', '"PaymentTransaction"'].filter((table) => statements.some((sql) => sql.includes(`FROM ${table}`)));
    return { count: statements.length, read };
  };

  it('a fixed number whatever the data: the sums in one statement over the stored totals, and one read per kind of group', async () => {
    const api = await newClient(app);
    const { pipeline, zeta, alpha, bob, ann, deal } = await pipelineOf(api);
    for (const [stage, user] of [[zeta, bob], [alpha, ann], [zeta, ann]] as const) await deal(stage, user, 5, '2026-05-05');
    // The pipeline (named or the default), the sums, the stages; owners: the users too.
    expect(await sent(api, `/reports/pipeline?pipeline_id=${pipeline.id}`)).toEqual({ count: 3, read: ['"DealTotal"'] });
    expect(await sent(api, '/reports/pipeline?group_by=expected_close_month&expected_close_from=2026-05-01&expected_close_to=2026-06-30')).toEqual({ count: 3, read: ['"DealTotal"'] });
    expect(await sent(api, '/reports/pipeline?group_by=user')).toEqual({ count: 4, read: ['"DealTotal"'] });
    // Close dates that cut a month: the days' totals.
    expect(await sent(api, '/reports/pipeline?expected_close_from=2026-05-02')).toEqual({ count: 3, read: ['"DealTotal"'] });
    expect(await sent(api, '/reports/pipeline?group_by=expected_close_month&expected_close_from=2026-04-10&expected_close_to=2026-05-30')).toEqual({ count: 3, read: ['"DealTotal"'] });
    // Created since a whole hour: the creation totals alone; inside an hour: and that hour's deals.
    expect(await sent(api, '/reports/pipeline?created_since=2026-01-01T00:00:00Z')).toEqual({ count: 3, read: ['"DealCreatedTotal"'] });
    expect(await sent(api, '/reports/pipeline?created_since=2026-01-01T10:00:00-03:00')).toEqual({ count: 3, read: ['"DealCreatedTotal"'] });
    expect(await sent(api, '/reports/pipeline?group_by=user&created_since=2026-01-01T10:20:00Z')).toEqual({ count: 4, read: ['"DealCreatedTotal"', '"Deal"'] });
    // The sums; by link, the links too.
    expect(await sent(api, '/reports/payments?group_by=week&from=2026-05-05&to=2026-05-05&status=paid&currency=EUR')).toEqual({ count: 1, read: ['"PaymentDayTotal"'] });
    expect(await sent(api, '/reports/payments?group_by=payment_link&status=paid')).toEqual({ count: 2, read: ['"PaymentLinkTotal"'] });
    expect(await sent(api, '/reports/payments?group_by=payment_link&from=2026-04-10&to=2026-05-05')).toEqual({ count: 2, read: ['"PaymentLinkTotal"'] });
    // Creation and close dates together: the totals that keep both (and, inside an hour, that hour's deals).
    expect(await sent(api, '/reports/pipeline?group_by=expected_close_month&created_since=2026-01-01T00:00:00Z')).toEqual({ count: 3, read: ['"DealCreatedCloseTotal"'] });
    expect(await sent(api, '/reports/pipeline?created_since=2026-01-01T00:00:00Z&expected_close_to=2026-05-31')).toEqual({ count: 3, read: ['"DealCreatedCloseTotal"'] });
    expect(await sent(api, '/reports/pipeline?group_by=user&created_since=2026-01-01T10:20:00Z&expected_close_from=2026-05-02')).toEqual({ count: 4, read: ['"DealCreatedCloseTotal"', '"Deal"'] });
  });

  it('answers every filter from the totals: a change made to a total alone shows in the answer', async () => {
    const api = await newClient(app);
    const { pipeline, zeta, bob, deal } = await pipelineOf(api);
    const created = async (close: string, at: string) => {
      const made = await deal(zeta, bob, 5, close);
      await app.database.prisma.deal.update({ where: { id: made.id }, data: { createdAt: new Date(at) } });
    };
    await created('2026-01-15', '2026-03-10T05:00:00.000Z');
    await created('2026-02-10', '2026-03-10T20:00:00.000Z');
    const account = (await api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'test' })).body;
    const link = (await api.post('/payment-links', { name: 'Plan', payment_provider_account_id: account.id })).body;
    const paid = (await api.post('/payment-transactions', { payment_link_id: link.id, provider_reference: 'pi_1', amount: 3, currency: 'USD' })).body;
    await app.database.prisma.paymentTransaction.update({ where: { id: paid.id }, data: { createdAt: new Date('2026-03-04T10:00:00.000Z') } });

    const ws = api.workspaceId;
    // A row of a total in a slot no connection has (-1): one more unit of value, no more records.
    const cases: [path: string, table: string, key: Record<string, string>][] = [
      [`/reports/pipeline?pipeline_id=${pipeline.id}&expected_close_from=2026-01-10&expected_close_to=2026-01-20`, 'DealTotal', { closeDay: '2026-01-15', closeMonth: '2026-01' }],
      [`/reports/pipeline?pipeline_id=${pipeline.id}&group_by=expected_close_month&expected_close_from=2026-01-16`, 'DealTotal', { closeDay: '', closeMonth: '2026-02' }],
      // created_since: the later months, the month's later days, the day's later hours (the first from the hour's first half).
      [`/reports/pipeline?pipeline_id=${pipeline.id}&created_since=2026-03-01T00:00:00Z`, 'DealCreatedTotal', { createdHour: '', createdDay: '', createdMonth: '2026-03' }],
      [`/reports/pipeline?pipeline_id=${pipeline.id}&created_since=2026-02-20T00:00:00Z`, 'DealCreatedTotal', { createdHour: '', createdDay: '', createdMonth: '2026-03' }],
      [`/reports/pipeline?pipeline_id=${pipeline.id}&created_since=2026-03-09T12:00:00Z`, 'DealCreatedTotal', { createdHour: '', createdDay: '2026-03-10', createdMonth: '2026-03' }],
      [`/reports/pipeline?pipeline_id=${pipeline.id}&group_by=user&created_since=2026-03-10T04:10:00Z`, 'DealCreatedTotal', { createdHour: '2026-03-10T04', createdDay: '2026-03-10', createdMonth: '2026-03' }],
      [`/reports/pipeline?pipeline_id=${pipeline.id}&created_since=2026-03-10T19:40:00Z`, 'DealCreatedTotal', { createdHour: '2026-03-10T21', createdDay: '2026-03-10', createdMonth: '2026-03' }],
      [`/reports/pipeline?pipeline_id=${pipeline.id}&created_since=2026-03-10T19:40:00Z`, 'DealCreatedTotal', { createdHour: '', createdDay: '2026-03-15', createdMonth: '2026-03' }],
      // created_since with close dates or by close month: the creation levels' rows of the close months held whole and the days of those cut.
      [`/reports/pipeline?pipeline_id=${pipeline.id}&group_by=expected_close_month&created_since=2026-03-10T19:40:00Z`, 'DealCreatedCloseTotal', { createdHour: '2026-03-10T21', createdDay: '2026-03-10', createdMonth: '2026-03', closeDay: '', closeMonth: '2026-02' }],
      [`/reports/pipeline?pipeline_id=${pipeline.id}&created_since=2026-03-01T00:00:00Z&expected_close_to=2026-01-31`, 'DealCreatedCloseTotal', { createdHour: '', createdDay: '', createdMonth: '2026-03', closeDay: '', closeMonth: '2026-01' }],
      [`/reports/pipeline?pipeline_id=${pipeline.id}&created_since=2026-03-09T12:00:00Z&expected_close_from=2026-01-10&expected_close_to=2026-01-20`, 'DealCreatedCloseTotal', { createdHour: '', createdDay: '2026-03-10', createdMonth: '2026-03', closeDay: '2026-01-15', closeMonth: '2026-01' }],
      ['/reports/payments?group_by=payment_link&from=2026-03-02&to=2026-03-20', 'PaymentLinkTotal', { day: '2026-03-04', month: '2026-03' }],
      ['/reports/payments?group_by=payment_link&to=2026-03-31', 'PaymentLinkTotal', { day: '', month: '2026-03' }],
    ];
    for (const [path, table, key] of cases) {
      const before = (await api.get(path)).body.data;
      expect([path, before.length]).toEqual([path, 1]);
      const row =
        table === 'PaymentLinkTotal'
          ? { workspaceId: ws, ...key, paymentLinkId: link.id, status: 'pending', currency: 'USD', slot: -1, payments: 0, amount: 10_000 }
          : { workspaceId: ws, ...key, stageId: zeta.id, userId: bob.id, currency: 'USD', slot: -1, deals: 0, value: 10_000 };
      const columns = Prisma.join(Object.keys(row).map((c) => Prisma.raw(`"${c}"`)));
      await app.database.prisma.$executeRaw`INSERT INTO ${Prisma.raw(`"${table}"`)} (${columns}) VALUES (${Prisma.join(Object.values(row))})`;
      const after = (await api.get(path)).body.data;
      await app.database.prisma.$executeRaw`DELETE FROM ${Prisma.raw(`"${table}"`)} WHERE "workspaceId" = ${ws} AND "slot" = -1`;
      expect([path, after]).toEqual([path, [{ ...before[0], total: before[0].total + 1, ...(before[0].weighted_total === undefined ? {} : { weighted_total: before[0].weighted_total + 0.5 }) }]]);
    }
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

describe('reports from the stored totals', () => {
  /** Rows of a totals table (summed over slots) or of the GROUP BY that computes them from the records. */
  type Groups = Record<string, string>[];
  const text = (rows: Record<string, unknown>[]): Groups => rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, String(v)])));

  /**
   * Every total of the workspace, added up over its slots, equals the GROUP BY over the rows
   * it counts (sums in ten-thousandths), and no group without rows is kept (on PostgreSQL,
   * once folded: a slot may hold a group's -1 until then).
   */
  async function expectTotalsMatchRows(workspaceId: string) {
    const db = app.database.prisma;
    const calendar = (format: string, length: number) => Prisma.raw(app.provider === 'sqlite' ? `substr("createdAt", 1, ${length})` : `to_char("createdAt", '${format}')`);
    const [hour, day, month] = [calendar('YYYY-MM-DD"T"HH24', 13), calendar('YYYY-MM-DD', 10), calendar('YYYY-MM', 7)];
    const ten = (column: string) => Prisma.raw(`SUM(CAST(ROUND("${column}" * 10000) AS BIGINT))`);
    const ws = Prisma.sql`"workspaceId" = ${workspaceId}`;
    // A total's rows over its slots, and the same two levels (a month's row, day '', and the day's) grouped from the records.
    // DealCreatedCloseTotal: each creation level of DealCreatedTotal's reference crossed with the close levels of DealTotal's.
    const closeLevels = Prisma.sql`SELECT '' AS "closeDay", COALESCE(substr("expectedCloseDate", 1, 7), '') AS "closeMonth", d.* FROM "Deal" d WHERE ${ws}
        UNION ALL SELECT "expectedCloseDate", substr("expectedCloseDate", 1, 7), d.* FROM "Deal" d WHERE ${ws} AND "expectedCloseDate" IS NOT NULL`;
    const [deals, dealRows, created, createdRows, both, bothRows, days, dayRows, links, linkRows] = await Promise.all([
      db.$queryRaw<Record<string, unknown>[]>`SELECT "closeDay", "closeMonth", "stageId", "userId", "currency", SUM("deals") AS n, SUM("value") AS v FROM "DealTotal" WHERE ${ws} GROUP BY 1, 2, 3, 4, 5 HAVING SUM("deals") <> 0 ORDER BY 1, 2, 3, 4, 5`,
      db.$queryRaw<Record<string, unknown>[]>`
        SELECT '' AS "closeDay", COALESCE(substr("expectedCloseDate", 1, 7), '') AS "closeMonth", "stageId", "userId", "currency", COUNT(*) AS n, ${ten('estimatedValue')} AS v FROM "Deal" WHERE ${ws} GROUP BY 2, 3, 4, 5
        UNION ALL
        SELECT "expectedCloseDate", substr("expectedCloseDate", 1, 7), "stageId", "userId", "currency", COUNT(*), ${ten('estimatedValue')} FROM "Deal" WHERE ${ws} AND "expectedCloseDate" IS NOT NULL GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5`,
      db.$queryRaw<Record<string, unknown>[]>`SELECT "createdHour", "createdDay", "createdMonth", "stageId", "userId", "currency", SUM("deals") AS n, SUM("value") AS v FROM "DealCreatedTotal" WHERE ${ws} GROUP BY 1, 2, 3, 4, 5, 6 HAVING SUM("deals") <> 0 ORDER BY 1, 2, 3, 4, 5, 6`,
      db.$queryRaw<Record<string, unknown>[]>`
        SELECT '' AS "createdHour", '' AS "createdDay", ${month} AS "createdMonth", "stageId", "userId", "currency", COUNT(*) AS n, ${ten('estimatedValue')} AS v FROM "Deal" WHERE ${ws} GROUP BY 3, 4, 5, 6
        UNION ALL
        SELECT '', ${day}, ${month}, "stageId", "userId", "currency", COUNT(*), ${ten('estimatedValue')} FROM "Deal" WHERE ${ws} GROUP BY 2, 3, 4, 5, 6
        UNION ALL
        SELECT ${hour}, ${day}, ${month}, "stageId", "userId", "currency", COUNT(*), ${ten('estimatedValue')} FROM "Deal" WHERE ${ws} GROUP BY 1, 2, 3, 4, 5, 6
        ORDER BY 1, 2, 3, 4, 5, 6`,
      db.$queryRaw<Record<string, unknown>[]>`SELECT "createdHour", "createdDay", "createdMonth", "closeDay", "closeMonth", "stageId", "userId", "currency", SUM("deals") AS n, SUM("value") AS v FROM "DealCreatedCloseTotal" WHERE ${ws} GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 HAVING SUM("deals") <> 0 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`,
      db.$queryRaw<Record<string, unknown>[]>`
        SELECT '' AS "createdHour", '' AS "createdDay", ${month} AS "createdMonth", "closeDay", "closeMonth", "stageId", "userId", "currency", COUNT(*) AS n, ${ten('estimatedValue')} AS v FROM (${closeLevels}) x GROUP BY 3, 4, 5, 6, 7, 8
        UNION ALL
        SELECT '', ${day}, ${month}, "closeDay", "closeMonth", "stageId", "userId", "currency", COUNT(*), ${ten('estimatedValue')} FROM (${closeLevels}) x GROUP BY 2, 3, 4, 5, 6, 7, 8
        UNION ALL
        SELECT ${hour}, ${day}, ${month}, "closeDay", "closeMonth", "stageId", "userId", "currency", COUNT(*), ${ten('estimatedValue')} FROM (${closeLevels}) x GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
        ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`,
      db.$queryRaw<Record<string, unknown>[]>`SELECT "day", "status", "currency", SUM("payments") AS n, SUM("amount") AS v FROM "PaymentDayTotal" WHERE ${ws} GROUP BY 1, 2, 3 HAVING SUM("payments") <> 0 ORDER BY 1, 2, 3`,
      db.$queryRaw<Record<string, unknown>[]>`SELECT ${day} AS "day", "status", "currency", COUNT(*) AS n, ${ten('amount')} AS v FROM "PaymentTransaction" WHERE ${ws} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      db.$queryRaw<Record<string, unknown>[]>`SELECT "day", "month", "paymentLinkId", "status", "currency", SUM("payments") AS n, SUM("amount") AS v FROM "PaymentLinkTotal" WHERE ${ws} GROUP BY 1, 2, 3, 4, 5 HAVING SUM("payments") <> 0 ORDER BY 1, 2, 3, 4, 5`,
      db.$queryRaw<Record<string, unknown>[]>`
        SELECT '' AS "day", ${month} AS "month", "paymentLinkId", "status", "currency", COUNT(*) AS n, ${ten('amount')} AS v FROM "PaymentTransaction" WHERE ${ws} GROUP BY 2, 3, 4, 5
        UNION ALL
        SELECT ${day}, ${month}, "paymentLinkId", "status", "currency", COUNT(*), ${ten('amount')} FROM "PaymentTransaction" WHERE ${ws} GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5`,
    ]);
    expect({ deals: text(deals), created: text(created), both: text(both), days: text(days), links: text(links) }).toEqual({
      deals: text(dealRows),
      created: text(createdRows),
      both: text(bothRows),
      days: text(dayRows),
      links: text(linkRows),
    });
    if (app.provider === 'postgresql') await compactReportTotals(app.database);
    const empty = await db.$queryRaw<[{ n: unknown }]>`
      SELECT (SELECT COUNT(*) FROM "DealTotal" WHERE ${ws} AND "deals" = 0 AND "value" = 0)
           + (SELECT COUNT(*) FROM "DealCreatedTotal" WHERE ${ws} AND "deals" = 0 AND "value" = 0)
           + (SELECT COUNT(*) FROM "DealCreatedCloseTotal" WHERE ${ws} AND "deals" = 0 AND "value" = 0)
           + (SELECT COUNT(*) FROM "PaymentDayTotal" WHERE ${ws} AND "payments" = 0 AND "amount" = 0)
           + (SELECT COUNT(*) FROM "PaymentLinkTotal" WHERE ${ws} AND "payments" = 0 AND "amount" = 0) AS n`;
    expect(Number(empty[0].n)).toBe(0);
  }

  /** Sums as comparable text, in a fixed order. */
  const ordered = <T extends { key: string | null; currency: string; sum: bigint }>(sums: T[]) =>
    sums.map((s) => ({ ...s, sum: String(s.sum) })).sort((a, b) => JSON.stringify([a.key, a.currency, a]).localeCompare(JSON.stringify([b.key, b.currency, b])));

  /** The REST answer's rows as (group key, currency, count, total): the group's id, or the month, day or status. */
  const answerOf = (data: { group: { id: string } | string | null; currency: string; count: number; total: number }[]) =>
    data.map((r) => ({ key: r.group !== null && typeof r.group === 'object' ? r.group.id : r.group, currency: r.currency, count: r.count, total: r.total })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

  /** The reference sums as the REST answer shows them: added up per group and currency (over stages), the total a decimal. */
  const expectedAnswer = (sums: (DealSum | PaymentSum)[]) => {
    const groups = new Map<string, { key: string | null; currency: string; count: number; sum: bigint }>();
    for (const s of sums) {
      const id = JSON.stringify([s.key, s.currency]);
      const group = groups.get(id) ?? groups.set(id, { key: s.key, currency: s.currency, count: 0, sum: 0n }).get(id)!;
      group.count += s.count;
      group.sum += s.sum;
    }
    return answerOf([...groups.values()].map((g) => ({ group: g.key, currency: g.currency, count: g.count, total: Number(fromTenThousandths(g.sum).toString()) })));
  };

  /**
   * Instants to give `created_since` around the workspace's deals: each deal's own creation
   * time and the millisecond after it, its hour and the next, its day's midnight and the
   * next, the same instant written with an offset, and one before every deal.
   */
  async function createdSinceValues(workspaceId: string): Promise<string[]> {
    const all = await app.database.prisma.deal.findMany({ where: { workspaceId }, select: { createdAt: true }, distinct: ['createdAt'], orderBy: { createdAt: 'asc' } });
    // At most six of them: the first, the last and four between.
    const rows = all.length <= 6 ? all : [0, 1, 2, 3, 4, 5].map((i) => all[Math.round((i * (all.length - 1)) / 5)]!);
    const values = new Set(['2000-01-01T00:00:00.000Z']);
    for (const { createdAt } of rows) {
      const midnight = Date.parse(createdAt.toISOString().slice(0, 10));
      const hour = Math.floor(createdAt.getTime() / 3_600_000) * 3_600_000;
      for (const t of [createdAt.getTime(), createdAt.getTime() + 1, hour, hour + 3_600_000, midnight, midnight + 86_400_000]) values.add(new Date(t).toISOString());
      // The same instant three hours behind UTC.
      values.add(`${new Date(createdAt.getTime() - 3 * 3_600_000).toISOString().slice(0, 23)}-03:00`);
    }
    return [...values];
  }

  /**
   * The pipeline report from the totals equals the same report summed over the deals
   * (`dealSumsFromRows`), per stage exactly (so the weighted totals agree too) and through
   * HTTP: both pipelines, each grouping, with and without an owner, close dates that cut
   * months or hold them whole, and `created_since` at and around every deal's creation.
   */
  async function expectPipelineReportsAgree(api: Client, pipelineIds: string[], userId: string) {
    const db = scopeToWorkspace(app.database.prisma, api.workspaceId);
    const closeRanges: [string?, string?][] = [[], ['2026-01-01', '2026-02-28'], [undefined, '2026-01-31'], ['2026-01-16'], [undefined, '2026-02-27'], ['2026-01-15', '2026-03-10'], ['2026-02-01', '2026-02-14'], ['2026-01-31', '2026-01-31'], ['2026-02-28', '2026-03-01']];
    // `since`: created_since as sent, with its offset.
    const filters: (Omit<DealSumsFilter, 'groupBy' | 'pipelineId'> & { since?: string })[] = [
      ...closeRanges.map(([expectedCloseFrom, expectedCloseTo]) => ({ expectedCloseFrom, expectedCloseTo })),
      ...(await createdSinceValues(api.workspaceId)).map((since) => ({ createdSince: new Date(since), since })),
      { userId },
      { userId, expectedCloseFrom: '2026-01-16', expectedCloseTo: '2026-02-20' },
      { userId, createdSince: new Date('2026-03-01T12:00:00.000Z'), since: '2026-03-01T12:00:00.000Z' },
      // created_since with close dates: inside an hour's first half and its later half (a deal of the hour on either side of it), a midnight.
      ...['2026-03-01T18:10:00.000Z', '2026-02-28T23:40:00.000Z', '2026-02-01T00:00:00.000Z'].flatMap((since) =>
        [['2026-01-16'], [undefined, '2026-02-27'], ['2026-02-01', '2026-02-14']].map(([expectedCloseFrom, expectedCloseTo]) => ({ expectedCloseFrom, expectedCloseTo, createdSince: new Date(since), since })),
      ),
      { userId, expectedCloseTo: '2026-02-20', createdSince: new Date('2026-03-01T12:40:00.000Z'), since: '2026-03-01T12:40:00.000Z' },
    ];
    for (const pipelineId of pipelineIds) {
      for (const groupBy of DEAL_REPORT_GROUPS) {
        for (const { since, ...filter } of filters) {
          const f = { groupBy, pipelineId, ...Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) } as DealSumsFilter;
          const reference = await dealSumsFromRows(db, f);
          expect([f, ordered(await dealSums(db, f))]).toEqual([f, ordered(reference)]);
          const query = new URLSearchParams({ pipeline_id: pipelineId, group_by: groupBy });
          for (const [name, value] of [['user_id', f.userId], ['expected_close_from', f.expectedCloseFrom], ['expected_close_to', f.expectedCloseTo], ['created_since', since]]) if (value) query.set(name!, value);
          const res = await api.get(`/reports/pipeline?${query}`);
          expect([query.toString(), res.status, answerOf(res.body.data)]).toEqual([query.toString(), 200, expectedAnswer(reference)]);
        }
      }
    }
  }

  /** Each payment report from the totals equals the GROUP BY over the transactions (the reports' own reference statement), and so does its REST answer. */
  async function expectPaymentReportsAgree(api: Client) {
    const db = scopeToWorkspace(app.database.prisma, api.workspaceId);
    const periods: Omit<PaymentSumsFilter, 'groupBy'>[] = [
      {},
      { from: '2026-03-01', to: '2026-03-01' },
      { from: '2026-03-02' },
      { to: '2026-02-28' },
      { from: '2026-02-10', to: '2026-03-01' },
      { from: '2026-02-11', to: '2026-03-31' },
      { from: '2026-02-01', to: '2026-03-31' },
      { from: '2026-01-31', to: '2026-02-01' },
    ];
    const filters = [...periods, { status: 'paid' }, { currency: 'EUR' }, { from: '2026-03-02', status: 'paid', currency: 'USD' }];
    for (const groupBy of PAYMENT_REPORT_GROUPS) {
      for (const filter of filters) {
        const f = { groupBy, ...filter };
        const reference = await paymentSumsFromRows(db, f);
        expect([f, ordered(await paymentSums(db, f))]).toEqual([f, ordered(reference)]);
        const query = new URLSearchParams({ group_by: groupBy, ...filter });
        const res = await api.get(`/reports/payments?${query}`);
        expect([query.toString(), res.status, answerOf(res.body.data)]).toEqual([query.toString(), 200, expectedAnswer(reference)]);
      }
    }
  }

  it('follow deals through creates, batches, moves between stages, owners, close months and pipelines, value and currency changes, deletes and stage removals', async () => {
    const api = await newClient(app);
    const { pipeline, zeta, alpha, bob, ann, deal } = await pipelineOf(api);
    const other = (await api.post('/pipelines', { name: 'Other', stages: [{ name: 'Only', probability: 30 }] })).body;
    const [only] = other.stages;
    const pipelines = [pipeline.id, other.id];
    const a = await deal(zeta, bob, 0.1, '2026-01-15');
    const b = await deal(zeta, ann, 0.2, '2026-01-31');
    const c = await deal(alpha, bob, 1234.5678, null);
    const d = await deal(alpha, ann, 7, '2026-02-01');
    await api.put('/workspace', { default_currency: 'EUR' });
    const e = await deal(zeta, bob, 3.3333, '2026-03-10');
    // A batch: one INSERT of several deals.
    const batch = await api.post('/deals/batch', {
      inputs: [0.05, 0.05, 99999999999.9999].map((value, i) => ({ name: `B${i}`, estimated_value: value, deal_stage_external_id: i ? alpha.external_id : only.external_id, user_id: ann.id, expected_close_date: '2026-02-28' })),
    });
    expect(batch.status).toBe(201);
    // Creation times on both halves of a day, at its last millisecond and at the next midnight (the others' are now).
    const created = [[a, '2026-03-01T05:00:00.000Z'], [b, '2026-03-01T18:00:00.000Z'], [c, '2026-02-28T23:59:59.999Z'], [d, '2026-03-02T00:00:00.000Z']] as const;
    for (const [deal, at] of created) await app.database.prisma.deal.update({ where: { id: deal.id }, data: { createdAt: new Date(at) } });
    await expectTotalsMatchRows(api.workspaceId);
    await expectPipelineReportsAgree(api, pipelines, bob.id);
    expect((await api.get(`/reports/pipeline?pipeline_id=${pipeline.id}&created_since=2026-03-01T04:00:00-03:00`)).body.data).toEqual([
      { group: stageGroup(zeta), currency: 'EUR', count: 1, total: 3.3333, weighted_total: 1.67 },
      { group: stageGroup(zeta), currency: 'USD', count: 1, total: 0.2, weighted_total: 0.1 },
      { group: stageGroup(alpha), currency: 'EUR', count: 2, total: 100000000000.0499, weighted_total: 12500000000.01 },
      { group: stageGroup(alpha), currency: 'USD', count: 1, total: 7, weighted_total: 0.88 },
    ]);

    const moves = [
      [a, { deal_stage_external_id: alpha.external_id }],
      [b, { user_id: bob.id }],
      [c, { expected_close_date: '2026-02-14' }],
      [d, { expected_close_date: null }],
      [d, { estimated_value: 8.25 }],
      [e, { deal_stage_external_id: only.external_id, estimated_value: 0 }],
      [e, { name: 'Renamed' }],
    ] as const;
    for (const [target, change] of moves) expect((await api.put(`/deals/${target.id}`, change)).status).toBe(200);
    // Several at once, in the batch's one transaction.
    expect((await api.put('/deals/batch', { inputs: [{ id: a.id, expected_close_date: '2026-01-01' }, { id: batch.body.data[1].id, user_id: bob.id }] })).status).toBe(200);
    // A deal's currency is not an input; the totals follow it wherever it changes.
    await app.database.prisma.deal.update({ where: { id: c.id }, data: { currency: 'JPY' } });
    expect((await api.delete(`/deals/${b.id}`)).status).toBe(204);
    await expectTotalsMatchRows(api.workspaceId);
    await expectPipelineReportsAgree(api, pipelines, bob.id);
    expect((await api.get(`/reports/pipeline?pipeline_id=${pipeline.id}&group_by=expected_close_month`)).body).toEqual({
      data: [
        { group: '2026-01', currency: 'USD', count: 1, total: 0.1, weighted_total: 0.01 },
        { group: '2026-02', currency: 'EUR', count: 2, total: 100000000000.0499, weighted_total: 12500000000.01 },
        { group: '2026-02', currency: 'JPY', count: 1, total: 1234.5678, weighted_total: 154 },
        { group: null, currency: 'USD', count: 1, total: 8.25, weighted_total: 1.03 },
      ],
    });

    // Zeta, emptied, is removed from the pipeline; its deals' totals were already gone.
    const kept = [{ external_id: alpha.external_id, name: 'Alpha', probability: 12.5 }, { name: 'Empty' }];
    expect((await api.put(`/pipelines/${pipeline.id}`, { stages: kept })).status).toBe(200);
    await expectTotalsMatchRows(api.workspaceId);
    expect((await api.get(`/reports/pipeline?pipeline_id=${pipeline.id}`)).body.data.map((r: { group: { name: string }; currency: string }) => `${r.group.name} ${r.currency}`)).toEqual([
      'Alpha EUR',
      'Alpha JPY',
      'Alpha USD',
    ]);
  });

  it('follow payment transactions through creates, status changes (events), amount, link and date changes and deletes', async () => {
    const api = await newClient(app);
    const account = (await api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'test' })).body;
    const gold = (await api.post('/payment-links', { name: 'Gold', payment_provider_account_id: account.id })).body;
    const silver = (await api.post('/payment-links', { name: 'Silver', payment_provider_account_id: account.id })).body;
    const pay = async (link: { id: string }, amount: number, currency: string, at: string) => {
      const res = await api.post('/payment-transactions', { payment_link_id: link.id, provider_reference: `pi_${Math.random()}`, amount, currency });
      expect(res.status).toBe(201);
      await app.database.prisma.paymentTransaction.update({ where: { id: res.body.id }, data: { createdAt: new Date(at) } });
      return res.body;
    };
    const t1 = await pay(gold, 0.1, 'USD', '2026-03-01T23:59:59.999Z');
    const t2 = await pay(gold, 0.2, 'USD', '2026-03-02T00:00:00.000Z');
    const t3 = await pay(silver, 7.0001, 'EUR', '2026-02-10T10:00:00.000Z');
    const t4 = await pay(silver, 3, 'EUR', '2026-03-02T10:00:00.000Z');
    await expectTotalsMatchRows(api.workspaceId);
    await expectPaymentReportsAgree(api);

    const event = (status: string, i: number) => ({ type: `payment.${status}`, status, provider_reference: `evt_${i}`, occurred_at: '2026-11-20T10:00:00Z' });
    expect((await api.post(`/payment-transactions/${t1.id}/events`, event('paid', 1))).status).toBe(201);
    expect((await api.post(`/payment-transactions/${t2.id}/events`, event('paid', 2))).status).toBe(201);
    expect((await api.post(`/payment-transactions/${t2.id}/events`, event('refunded', 3))).status).toBe(201);
    expect((await api.post(`/payment-transactions/${t3.id}/events`, event('failed', 4))).status).toBe(201);
    // What the API does not change, the totals still follow: amount, currency, link, day.
    const prisma = app.database.prisma;
    await prisma.paymentTransaction.update({ where: { id: t4.id }, data: { amount: 3.5, paymentLinkId: gold.id } });
    await prisma.paymentTransaction.update({ where: { id: t1.id }, data: { currency: 'BRL', createdAt: new Date('2026-02-28T12:00:00.000Z') } });
    await prisma.paymentTransaction.updateMany({ where: { id: { in: [t2.id, t3.id] } }, data: { createdAt: new Date('2026-03-01T00:00:00.000Z') } });
    await expectTotalsMatchRows(api.workspaceId);
    await expectPaymentReportsAgree(api);
    expect((await api.get('/reports/payments?group_by=status')).body.data).toEqual([
      { group: 'pending', currency: 'EUR', count: 1, total: 3.5 },
      { group: 'paid', currency: 'BRL', count: 1, total: 0.1 },
      { group: 'failed', currency: 'EUR', count: 1, total: 7.0001 },
      { group: 'refunded', currency: 'USD', count: 1, total: 0.2 },
    ]);

    await prisma.paymentTransactionEvent.deleteMany({ where: { transactionId: t2.id } });
    await prisma.paymentTransaction.delete({ where: { id: t2.id } });
    await expectTotalsMatchRows(api.workspaceId);
    await expectPaymentReportsAgree(api);
    expect((await api.get('/reports/payments?group_by=day')).body.data).toEqual([
      { group: '2026-02-28', currency: 'BRL', count: 1, total: 0.1 },
      { group: '2026-03-01', currency: 'EUR', count: 1, total: 7.0001 },
      { group: '2026-03-02', currency: 'EUR', count: 1, total: 3.5 },
    ]);
  });

  it('are gone with a deleted workspace, its deals and transactions cascading, and none is made for it', async () => {
    const api = await newClient(app);
    const { zeta, bob, deal } = await pipelineOf(api);
    await deal(zeta, bob, 5, '2026-01-10');
    const account = (await api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'test' })).body;
    const link = (await api.post('/payment-links', { name: 'Plan', payment_provider_account_id: account.id })).body;
    expect((await api.post('/payment-transactions', { payment_link_id: link.id, provider_reference: 'pi_1', amount: 3, currency: 'USD' })).status).toBe(201);
    const left = async () => {
      const [row] = await app.database.prisma.$queryRaw<[{ n: unknown }]>`
        SELECT (SELECT COUNT(*) FROM "DealTotal" WHERE "workspaceId" = ${api.workspaceId})
             + (SELECT COUNT(*) FROM "DealCreatedTotal" WHERE "workspaceId" = ${api.workspaceId})
             + (SELECT COUNT(*) FROM "PaymentDayTotal" WHERE "workspaceId" = ${api.workspaceId})
             + (SELECT COUNT(*) FROM "PaymentLinkTotal" WHERE "workspaceId" = ${api.workspaceId}) AS n`;
      return Number(row.n);
    };
    // The deal's month and day rows by close date, its month, day and hour rows by creation, the transaction's day row and its link's month and day rows.
    expect(await left()).toBe(8);
    await app.database.prisma.workspace.delete({ where: { id: api.workspaceId } });
    expect(await left()).toBe(0);
  });

  describe.runIf(process.env.TEST_PROVIDER === 'postgresql')('on PostgreSQL, in a slot per connection', () => {
    const slotRows = async (workspaceId: string) =>
      Number((await app.database.prisma.$queryRaw<[{ n: bigint }]>`SELECT COUNT(*) AS n FROM "DealTotal" WHERE "workspaceId" = ${workspaceId} AND "slot" <> 0`)[0].n);

    it('stay exact under concurrent creates, moves and deletes, and are folded into slot 0 with the same sums', async () => {
      const api = await newClient(app);
      const { pipeline, zeta, alpha, bob, ann, deal } = await pipelineOf(api);
      const deals = await Promise.all(Array.from({ length: 20 }, (_, i) => deal(i % 2 ? zeta : alpha, i % 3 ? bob : ann, i + 0.0001, `2026-0${1 + (i % 4)}-15`)));
      const replies = await Promise.all([
        ...deals.slice(0, 10).map((d, i) => api.put(`/deals/${d.id}`, { deal_stage_external_id: i % 2 ? alpha.external_id : zeta.external_id, estimated_value: 10 * i })),
        ...deals.slice(10, 15).map((d) => api.put(`/deals/${d.id}`, { user_id: bob.id, expected_close_date: null })),
        ...deals.slice(15).map((d) => api.delete(`/deals/${d.id}`)),
        ...Array.from({ length: 20 }, (_, i) => api.post('/deals', { name: 'N', estimated_value: i / 4, deal_stage_external_id: zeta.external_id, user_id: ann.id, expected_close_date: '2026-05-31' })),
      ]);
      expect(replies.map((r) => r.status).sort()).toEqual([...Array(15).fill(200), ...Array(20).fill(201), ...Array(5).fill(204)]);
      const before = (await api.get(`/reports/pipeline?pipeline_id=${pipeline.id}&group_by=user`)).body;
      // Compared before any fold (a fold at the end of the check would hide a slot's mistake).
      await expectPipelineReportsAgree(api, [pipeline.id], bob.id);
      expect(await slotRows(api.workspaceId)).toBeGreaterThan(0);

      // Groups that end empty leave no row: one filled and emptied before a fold (its slot rows
      // add up to nothing), one emptied after a fold (slot 0 comes back to zero).
      const [gone, later] = [await deal(alpha, ann, 1, '2027-11-01'), await deal(alpha, ann, 2, '2027-12-01')];
      expect((await api.delete(`/deals/${gone.id}`)).status).toBe(204);
      expect(await compactReportTotals(app.database)).toBeGreaterThan(0);
      expect(await slotRows(api.workspaceId)).toBe(0);
      expect((await api.delete(`/deals/${later.id}`)).status).toBe(204);
      expect(await compactReportTotals(app.database)).toBeGreaterThan(0);
      const late = await app.database.prisma.$queryRaw<{ closeMonth: string }[]>`SELECT "closeMonth" FROM "DealTotal" WHERE "workspaceId" = ${api.workspaceId} AND "closeMonth" >= '2027-11'`;
      expect([late, await slotRows(api.workspaceId)]).toEqual([[], 0]);
      await expectTotalsMatchRows(api.workspaceId);
      expect((await api.get(`/reports/pipeline?pipeline_id=${pipeline.id}&group_by=user`)).body).toEqual(before);
    });

    it('stay exact for payments under concurrent creates and status changes, by link and period too, and are folded with the same sums', async () => {
      const api = await newClient(app);
      const account = (await api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'test' })).body;
      const links = await Promise.all(['Gold', 'Silver'].map(async (name) => (await api.post('/payment-links', { name, payment_provider_account_id: account.id })).body));
      const pay = (i: number) => api.post('/payment-transactions', { payment_link_id: links[i % 2].id, provider_reference: `pi_${i}_${Math.random()}`, amount: i + 0.0001, currency: i % 3 ? 'USD' : 'EUR' });
      const first = await Promise.all(Array.from({ length: 20 }, (_, i) => pay(i)));
      expect(first.map((r) => r.status)).toEqual(Array(20).fill(201));
      // Their days as the fixtures of expectPaymentReportsAgree know them, spread over two months.
      const days = ['2026-02-10T10:00:00.000Z', '2026-02-28T23:59:59.999Z', '2026-03-01T00:00:00.000Z', '2026-03-02T10:00:00.000Z'];
      await Promise.all(first.map((r, i) => app.database.prisma.paymentTransaction.update({ where: { id: r.body.id }, data: { createdAt: new Date(days[i % 4]!) } })));
      const event = (status: string, i: number) => ({ type: `payment.${status}`, status, provider_reference: `evt_${i}_${Math.random()}`, occurred_at: '2026-11-20T10:00:00Z' });
      const replies = await Promise.all([
        ...first.map((r, i) => api.post(`/payment-transactions/${r.body.id}/events`, event(i % 2 ? 'paid' : 'failed', i))),
        ...Array.from({ length: 20 }, (_, i) => pay(20 + i)),
      ]);
      expect(replies.map((r) => r.status)).toEqual(Array(40).fill(201));
      const slots = async () => Number((await app.database.prisma.$queryRaw<[{ n: bigint }]>`SELECT COUNT(*) AS n FROM "PaymentLinkTotal" WHERE "workspaceId" = ${api.workspaceId} AND "slot" <> 0`)[0].n);
      expect(await slots()).toBeGreaterThan(0);
      await expectPaymentReportsAgree(api);
      const before = (await api.get('/reports/payments?group_by=payment_link&from=2026-02-11&to=2026-03-01')).body;
      await expectTotalsMatchRows(api.workspaceId);
      expect(await slots()).toBe(0);
      expect((await api.get('/reports/payments?group_by=payment_link&from=2026-02-11&to=2026-03-01')).body).toEqual(before);
      await expectPaymentReportsAgree(api);
    });

    it('let two open transactions write deals and transactions of one workspace without waiting for each other', async () => {
      const api = await newClient(app);
      const { zeta, bob, deal } = await pipelineOf(api);
      const existing = await deal(zeta, bob, 5, '2026-01-10');
      const connect = async () => {
        const client = new pg.Client({ connectionString: databaseUrl() });
        await client.connect();
        return client;
      };
      const [first, second] = [await connect(), await connect()];
      const insert = (c: pg.Client, id: string) =>
        c.query(`INSERT INTO "Deal" ("id", "workspaceId", "name", "estimatedValue", "currency", "expectedCloseDate", "stageId", "userId", "properties", "updatedAt")
                 VALUES ($1, $2, 'Raw', 2.5, 'USD', '2026-01-20', $3, $4, '{}', now())`, [id, api.workspaceId, zeta.id, bob.id]);
      try {
        await first.query('BEGIN');
        await insert(first, `raw-1-${existing.id}`);
        // Waiting for the first transaction's lock would fail at once instead of hanging.
        await second.query("BEGIN; SET LOCAL lock_timeout = '1ms'");
        await insert(second, `raw-2-${existing.id}`);
        await second.query(`UPDATE "Deal" SET "estimatedValue" = 6 WHERE "id" = $1`, [existing.id]);
        await second.query('COMMIT');
        await first.query('COMMIT');
      } finally {
        await Promise.all([first.end(), second.end()]);
      }
      await expectTotalsMatchRows(api.workspaceId);
      expect((await api.get('/reports/pipeline?group_by=expected_close_month')).body.data).toEqual([{ group: '2026-01', currency: 'USD', count: 3, total: 11, weighted_total: 5.5 }]);
    });
  });
});
