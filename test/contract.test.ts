import { getNamedType, isInputObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from './support/schema.js';
import { restRoutes } from '../src/modules/index.js';
import { compileDocument } from '../src/rest/documents.js';
import { snakeCase } from '../src/validation/messages.js';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';
import { snapshotWorkspace } from './support/snapshot.js';

// Checks that hold for every route of the table, so a new resource gets them for free.

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

/** One record of each resource, and the id a `{id}` route of each path prefix uses. */
async function seed(api: Client): Promise<Record<string, string>> {
  const user = (await api.post('/users', { name: 'U', email: 'u@example.com' })).body;
  const company = (await api.post('/companies', { name: 'C' })).body;
  const contact = (await api.post('/contacts', { first_name: 'F', email: 'f@example.com', company_ids: [company.id] })).body;
  const product = (await api.post('/products', { name: 'P', type: 'product', price: 1, currency: 'USD', unit: 'unit' })).body;
  const pipeline = (await api.post('/pipelines', { name: 'Pl', stages: [{ name: 'S' }] })).body;
  const deal = (await api.post('/deals', { name: 'D', deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id })).body;
  const definition = (await api.post('/property-definitions', { object: 'contact', key: 'k', label: 'K', type: 'string' })).body;
  const task = (await api.post('/tasks', { title: 'T', owner_ids: [user.id], assignee_ids: [user.id] })).body;
  const ticketStatus = (await api.post('/ticket-statuses', { name: 'Open' })).body;
  const ticket = (await api.post('/tickets', { title: 'Tk', ticket_status_id: ticketStatus.id })).body;
  const account = (await api.post('/payment-provider-accounts', { name: 'A', provider: 'test' })).body;
  const link = (await api.post('/payment-links', { name: 'L', payment_provider_account_id: account.id, product_ids: [product.id] })).body;
  const coupon = (await api.post('/payment-coupons', { code: 'C', type: 'amount', value: 1, payment_link_id: link.id })).body;
  const transaction = (await api.post('/payment-transactions', { payment_link_id: link.id, provider_reference: 'pi_1', amount: 1, currency: 'USD' })).body;
  const ids = {
    users: user.id,
    companies: company.id,
    contacts: contact.id,
    products: product.id,
    pipelines: pipeline.id,
    deals: deal.id,
    'property-definitions': definition.id,
    tasks: task.id,
    'ticket-statuses': ticketStatus.id,
    tickets: ticket.id,
    'payment-provider-accounts': account.id,
    'payment-links': link.id,
    'payment-coupons': coupon.id,
    'payment-transactions': transaction.id,
  };
  for (const id of Object.values(ids)) expect(id).toMatch(/^[0-9A-Z]{26}$/);
  return ids;
}

const fill = (path: string, ids: Record<string, string>) => path.replace('{type}', 'contacts').replace('{id}', ids[path.split('/')[1]!] ?? 'none');

/** Everything the workspace holds, as its list routes show it. */
async function snapshot(api: Client) {
  const lists = restRoutes.filter((r) => r.method === 'GET' && !r.path.includes('{'));
  return Promise.all(lists.map(async (r) => (await api.get(`${r.path}?per_page=100`)).body));
}

/** The snake_case body fields a route's `$input` takes. */
function bodyFields(route: (typeof restRoutes)[number]): string[] {
  const { operation } = compileDocument(schema, route.document, route.path);
  const input = operation.variableDefinitions?.find((v) => v.variable.name.value === 'input');
  if (!input) return [];
  const type = getNamedType(schema.getType((input.type as { type?: { name: { value: string } } }).type?.name.value ?? '') ?? undefined);
  return type && isInputObjectType(type) ? Object.keys(type.getFields()).map(snakeCase) : [];
}

const HOSTILE: unknown[] = [null, 12345, -1, 1e308, true, 'x'.repeat(20_000), '', '2026-02-30', 'not-an-email', [], [null], ['nope'], {}, { $gt: '' }];

describe('every route', () => {
  // The adapter compiles a route's document on its first request: a broken one is caught here, not at start.
  it('has a GraphQL document that is valid against the schema, with exactly one operation', () => {
    const broken = restRoutes.flatMap((r) => {
      try {
        compileDocument(schema, r.document, `${r.method} ${r.path}`);
        return [];
      } catch (error) {
        return [(error as Error).message];
      }
    });
    expect(broken).toEqual([]);
  });

  it('answers another workspace\'s ids with 404, as if they did not exist', async () => {
    const owner = await newClient(app);
    const stranger = await newClient(app);
    const ids = await seed(owner);
    const routes = restRoutes.filter((r) => r.path.includes('{id}'));
    expect(routes.length).toBeGreaterThanOrEqual(35);
    for (const route of routes) {
      const res = await stranger.request(route.method, fill(route.path, ids), route.method === 'PUT' ? { body: { name: 'x' } } : {});
      expect([route.method, route.path, res.status]).toEqual([route.method, route.path, 404]);
      expect(res.body.message).toMatch(/ not found\.$/);
    }
    expect(await snapshot(owner)).toEqual(await snapshot(owner));
  });

});

// One test per write route: each sends every hostile body and compares the whole workspace after each refusal.
describe.each(restRoutes.filter((r) => r.method === 'POST' || r.method === 'PUT').map((r) => [`${r.method} ${r.path}`, r] as const))('%s', (_label, route) => {
  it('never answers hostile bodies with 5xx, and a refused body changes nothing', async () => {
    const api = await newClient(app);
    const ids = await seed(api);
    const fields = bodyFields(route);
    const bodies = [
      ...HOSTILE.map((value) => Object.fromEntries(fields.map((f) => [f, value]))),
      // A PUT also gets one field at a time (nothing else to fail first): each field a third of the
      // values, in turn, so that every value reaches a third of the fields (the bodies above give
      // every field every value at once): two thirds fewer requests than the whole cross product.
      ...(route.method === 'PUT' ? fields.flatMap((f, i) => HOSTILE.filter((_, j) => (i + j) % 3 === 0).map((value) => ({ [f]: value }))) : []),
      ...HOSTILE.filter((value) => typeof value !== 'object' || value === null || Array.isArray(value)),
    ];
    // Every row of the workspace (links included) and its own settings row, read straight from the
    // database: a refusal must leave all of it as it was.
    const rows = async () => [await snapshotWorkspace(app.database, api.workspaceId), await app.database.prisma.workspace.findUnique({ where: { id: api.workspaceId } })];
    let state = await rows();
    for (const body of bodies) {
      const res = await api.request(route.method, fill(route.path, ids), { body });
      const label = [route.method, route.path, JSON.stringify(body).slice(0, 80)];
      expect([...label, res.status < 500]).toEqual([...label, true]);
      if (res.status >= 400) {
        expect(res.body).toHaveProperty('message');
        expect([...label, await rows()]).toEqual([...label, state]);
      } else {
        state = await rows();
      }
    }
  });
});
