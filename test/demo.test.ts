import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { newId } from '../src/db/ids.js';
import { countDemoRows, loadDemo } from '../src/demo/demo-data.js';
import { type TestApp, send, startApp } from './support/app.js';
import { cli as runCommand } from './support/cli.js';
import { databaseUrl } from './support/file-database.js';

/** The CLI as a real process, on this file's migrated database. */
const cli = (args: string[]) => runCommand(args, { DATABASE_URL: databaseUrl() });

const workspace = `demo-${newId()}`;
let app: TestApp;
let workspaceId: string;
let first: Awaited<ReturnType<typeof cli>>;
let second: Awaited<ReturnType<typeof cli>>;
let countsAfterFirst: Record<string, number>;
let countsAfterSecond: Record<string, number>;
let api: (path: string, body?: unknown) => ReturnType<typeof send>;

beforeAll(async () => {
  app = await startApp();
  first = await cli(['demo', '--workspace', workspace]);
  const row = await app.database.prisma.workspace.findUnique({ where: { name: workspace } });
  workspaceId = row?.id ?? '';
  countsAfterFirst = await countDemoRows(app.database.prisma, workspaceId);
  second = await cli(['demo', '--workspace', workspace]);
  countsAfterSecond = await countDemoRows(app.database.prisma, workspaceId);
  const { key } = await createKey(app.database.prisma, workspace, 'test');
  api = (path, body) =>
    body === undefined
      ? send(`${app.url}/api/v1${path}`, 'GET', { headers: { 'X-Api-Key': key } })
      : send(`${app.url}${path}`, 'POST', { body, headers: { 'X-Api-Key': key } });
});
afterAll(() => app.close());

describe('cli demo', () => {
  it('loads the data set, reporting progress on stderr only', () => {
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(/30 contacts/);
    expect(first.stderr).toMatch(/40 payment transactions/);
    expect(first.stderr).toContain(workspaceId);
    expect(countsAfterFirst).toMatchObject({
      users: 4,
      propertyDefinitions: 4,
      companies: 8,
      contacts: 30,
      products: 6,
      pipelines: 3,
      tasks: 12,
      ticketStatuses: 4,
      tickets: 15,
      paymentProviderAccounts: 3,
      paymentLinks: 6,
      paymentCoupons: 9,
      paymentTransactions: 40,
    });
  });

  it('records one created event per record, by the command line, in one INSERT', async () => {
    // Stages are part of their pipeline, provider events of their transaction: no events of their own.
    const { dealStages: _stages, paymentEvents: _events, ...records_ } = countsAfterFirst;
    const records = Object.values(records_).reduce((sum, n) => sum + n, 0);
    expect(first.stderr).toContain(`${records} events (one per record)`);
    const events = await app.database.prisma.event.findMany({ where: { workspaceId }, select: { type: true, actor: true, requestId: true, recordId: true, createdAt: true } });
    expect(events.length).toBe(records);
    expect(new Set(events.map((e) => e.recordId)).size).toBe(records);
    expect(events.every((e) => e.type.endsWith('.created') && e.actor === '{"type":"cli"}' && e.requestId === null)).toBe(true);
    // One INSERT: every event carries the same instant.
    expect(new Set(events.map((e) => e.createdAt.getTime())).size).toBe(1);
    const contact = (await api('/contacts?per_page=1')).body.data[0];
    const event = (await api(`/events?record_id=${contact.id}`)).body.data[0];
    expect([event.type, event.actor, event.request_id, event.data]).toEqual(['contact.created', { type: 'cli' }, null, { object: contact, previous_attributes: null }]);
  });

  it('detects a second run and loads nothing again', () => {
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(/already holds the demo/);
    expect(countsAfterSecond).toEqual(countsAfterFirst);
  });

  it('needs --workspace', async () => {
    const bare = await cli(['demo']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('demo --workspace <name>');
  });

  it('reads back through REST: pipelines, a deal in every stage, contact search, products', async () => {
    const pipelines = await api('/pipelines');
    expect(pipelines.status).toBe(200);
    expect(pipelines.body.total).toBe(3);
    const stages: string[] = pipelines.body.data.flatMap((p: any) => p.stages.map((s: any) => s.id));
    expect(stages.length).toBeGreaterThanOrEqual(12);

    const deals = await api('/deals?per_page=100');
    expect(deals.status).toBe(200);
    expect(deals.body.total).toBe(countsAfterFirst.deals);
    expect(deals.body.data).toHaveLength(deals.body.total);
    const dealStages = new Set(deals.body.data.map((d: any) => d.stage.id));
    for (const stage of stages) expect(dealStages.has(stage)).toBe(true);

    const found = await api('/contacts?search=TANAKA');
    expect(found.body.data.map((c: any) => [c.first_name, c.email, c.properties])).toEqual([
      ['Hiroshi', 'hiroshi.tanaka@sakurafoods.example', { tier: 'gold', newsletter: false }],
    ]);

    // The search across records finds the demo's records as it finds any written through the API.
    const searched = await api('/search?q=tanaka');
    expect(searched.body.data.map((h: any) => [h.type, h.title, h.subtitle])).toEqual([['contacts', 'Hiroshi Tanaka', 'hiroshi.tanaka@sakurafoods.example']]);
    const everyType = await api('/search?q=a&per_page=50');
    expect(new Set(everyType.body.data.map((h: any) => h.type)).size).toBeGreaterThanOrEqual(3);

    const products = await api('/products');
    expect(products.body.total).toBe(6);
    expect(new Set(products.body.data.map((p: any) => p.currency))).toEqual(new Set(['USD', 'EUR', 'JPY']));
  });

  it('reads back through GraphQL: contacts with their companies', async () => {
    const res = await api('/graphql', { query: '{ contacts(perPage: 5) { total data { email companies { name } } } }' });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.contacts.total).toBe(30);
    expect(res.body.data.contacts.data[0]).toEqual({ email: 'jordan.lee@harborpine.example', companies: [{ name: 'Harbor & Pine Logistics' }] });
  });

  it('stores tasks, tickets and payments consistently', async () => {
    const db = app.database.prisma;
    const tasks = await db.task.findMany({ where: { workspaceId }, orderBy: { position: 'asc' }, include: { owners: true } });
    expect(tasks.map((t) => t.position)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(new Set(tasks.map((t) => t.priority))).toEqual(new Set(['low', 'normal', 'high', 'urgent']));
    expect(tasks.every((t) => t.owners.length > 0)).toBe(true);

    const statuses = await db.ticketStatus.findMany({ where: { workspaceId }, orderBy: { order: 'asc' }, include: { tickets: { orderBy: { position: 'asc' } } } });
    expect(statuses.map((s) => [s.name, s.order, s.isClosed])).toEqual([
      ['Open', 0, false],
      ['In progress', 1, false],
      ['Waiting', 2, false],
      ['Closed', 3, true],
    ]);
    for (const s of statuses) expect(s.tickets.map((t) => t.position)).toEqual(Array.from({ length: s.tickets.length }, (_, i) => i + 1));

    const links = await db.paymentLink.findMany({ where: { workspaceId }, include: { products: true, coupons: true } });
    expect(links.filter((l) => l.isRecurring).map((l) => [l.intervalUnit, l.billingCycles])).toEqual([['month', 12]]);
    for (const l of links) expect(l.products.every((p) => p.currency === l.currency)).toBe(true);
    for (const c of links.flatMap((l) => l.coupons)) {
      expect(c.codeKey).toBe(c.code.toLowerCase());
      if (c.maxRedemptions !== null) expect(c.timesRedeemed).toBeLessThan(c.maxRedemptions);
      if (c.type === 'percent') expect(Number(c.value)).toBeLessThanOrEqual(100);
    }

    const transactions = await db.paymentTransaction.findMany({
      where: { workspaceId },
      include: { events: { orderBy: { occurredAt: 'asc' } }, paymentLink: true },
    });
    expect(transactions).toHaveLength(40);
    const byStatus = new Map<string, number>();
    for (const t of transactions) byStatus.set(t.status, (byStatus.get(t.status) ?? 0) + 1);
    for (const status of ['pending', 'processing', 'paid', 'failed', 'refunded', 'canceled']) expect(byStatus.get(status) ?? 0).toBeGreaterThanOrEqual(3);
    for (const t of transactions) {
      expect(t.events.length).toBeGreaterThanOrEqual(1);
      expect(t.events.length).toBeLessThanOrEqual(4);
      expect(t.status).toBe(t.events.at(-1)!.status);
      expect(new Set(t.events.map((e) => e.occurredAt.getTime())).size).toBe(t.events.length);
      expect(new Set(t.events.map((e) => e.providerReference)).size).toBe(t.events.length);
      expect([t.currency, t.providerAccountId]).toEqual([t.paymentLink.currency, t.paymentLink.providerAccountId]);
    }
    expect(await db.paymentTransactionEvent.count({ where: { workspaceId } })).toBe(countsAfterFirst.paymentEvents);
  });

  it('leaves nothing behind when the load fails half-way', async () => {
    const name = `demo-failed-${newId()}`;
    const failing = (line: string) => {
      if (/deals/.test(line)) throw new Error('stopped on purpose');
    };
    await expect(loadDemo(app.database.prisma, app.service.represent, name, failing)).rejects.toThrow('stopped on purpose');
    expect(await app.database.prisma.workspace.count({ where: { name } })).toBe(0);
    expect(await app.database.prisma.user.count({ where: { workspace: { name } } })).toBe(0);
  });
});

describe('the payable demo link', () => {
  it('is printed by both runs and is paid end to end: 6 installments, the TRYIT10 coupon, approved on the test provider', async () => {
    const printed = /Pay the demo link: http:\/\/\S+\/pay\/([A-Za-z0-9_-]+)/;
    const token = printed.exec(first.stderr)?.[1];
    expect(token).toBeDefined();
    expect(printed.exec(second.stderr)?.[1]).toBe(token);
    const page = await send(`${app.url}/pay/${token}`, 'GET');
    expect([page.status, page.text.includes('Starter pack (pay online)')]).toEqual([200, true]);
    const pub = (path: string, body: unknown) => send(`${app.url}/api/v1/public/payment-links/${token}${path}`, 'POST', { body });
    // 120 - 10% = 108 at 1.5% a month over 6 months: 108 * 0.015 / (1 - 1.015^-6) = 18.9565 -> 18.96
    const quote = await pub('/quote', { installments: 6, coupon_code: 'tryit10' });
    expect(quote.body).toMatchObject({ subtotal: 120, discount: 12, installments: 6, installment_amount: 18.96, total: 113.76, interest: 5.76 });
    const checkout = await pub('/checkouts', { installments: 6, coupon_code: 'TRYIT10', payer: { name: 'Demo Payer', email: 'payer@example.com' } });
    expect(checkout.status).toBe(201);
    const approved = await fetch(checkout.body.next_action.url.replace(/^http:\/\/[^/]+/, app.url), {
      method: 'POST',
      body: 'decision=approve',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    expect(approved.status).toBe(303);
    expect((await send(`${app.url}/api/v1/public/checkouts/${checkout.body.checkout_id}`, 'GET')).body.status).toBe('paid');
  });
});

