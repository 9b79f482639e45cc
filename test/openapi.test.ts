import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputRules } from '../src/graphql/inputs.js';
import { schema } from './support/schema.js';
import { publicRoutes, restRoutes } from '../src/modules/index.js';
import { buildOpenApiDocument } from '../src/openapi/document.js';
import type { RestRoute } from '../src/rest/route.js';
import { type Client, type Reply, type TestApp, newClient, send, startApp } from './support/app.js';

type Json = Record<string, any>;

let app: TestApp;
let api: Client;
let doc: Json;
let served: Reply;
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats.default(ajv);

const keyOf = (route: Pick<RestRoute, 'method' | 'path'>) => `${route.method} ${route.path}`;
const operationOf = (route: Pick<RestRoute, 'method' | 'path'>): Json => doc.paths[route.path]?.[route.method.toLowerCase()];
const takesBody = (route: RestRoute) => /\$inputs?\b/.test(route.document);

/** What a `$ref` points at in the document (refs are local: `#/components/...`). */
function resolve(ref: string): Json {
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<Json>((at, part) => at?.[part], doc);
}

/** The schema with every `$ref` replaced by its target (the document has no cycles), so Ajv compiles it alone. */
function inline(value: unknown): any {
  if (Array.isArray(value)) return value.map(inline);
  if (!value || typeof value !== 'object') return value;
  const { $ref, ...rest } = value as Json;
  const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inline(v)]));
  return typeof $ref === 'string' ? { ...inline(resolve($ref)), ...own } : own;
}

const response = (op: Json, status: number): Json | undefined => {
  const r = op.responses?.[String(status)];
  return r?.$ref ? resolve(r.$ref) : r;
};

function expectValid(schema: unknown, value: unknown, label: string) {
  const validate = ajv.compile(inline(schema));
  const ok = validate(value);
  expect(ok, `${label}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 2000)}`).toBe(true);
}

/** Every object a response schema can hold admits no other field (API.md §2: exactly the specified fields). */
function expectClosedObjects(schema: unknown, label: string) {
  const visit = (s: Json) => {
    if (s.properties) {
      expect(s.additionalProperties, `${label}: an object schema allows extra fields`).toBe(false);
      Object.values<Json>(s.properties).forEach(visit);
    }
    if (s.items) visit(s.items);
    for (const key of ['anyOf', 'oneOf', 'allOf']) (s[key] ?? []).forEach(visit);
  };
  visit(inline(schema));
}

/** A real answer is one the document lists for the operation, with that body and the headers it requires. */
function expectDocumented(route: RestRoute, reply: Reply) {
  const op = operationOf(route);
  const documented = response(op, reply.status);
  expect(documented, `${keyOf(route)} answered ${reply.status}, which is not documented: ${reply.text.slice(0, 500)}`).toBeDefined();
  for (const [name, header] of Object.entries<Json>(documented!.headers ?? {})) {
    const h = header.$ref ? resolve(header.$ref) : header;
    if (h.required) expect(reply.headers.get(name), `${keyOf(route)} ${reply.status}: header ${name}`).not.toBeNull();
  }
  const csv = documented!.content?.['text/csv'];
  if (csv) {
    expect(reply.headers.get('content-type'), `${keyOf(route)} answers CSV`).toBe('text/csv; charset=utf-8');
    expect(reply.text.split('\r\n')[0], `${keyOf(route)} has a header row`).toMatch(/^id,/);
    return;
  }
  const schema = documented!.content?.['application/json']?.schema;
  if (!schema) {
    expect(reply.text, `${keyOf(route)} ${reply.status} documents no body`).toBe('');
    return;
  }
  expectClosedObjects(schema, `${keyOf(route)} ${reply.status}`);
  expectValid(schema, reply.body, `${keyOf(route)} ${reply.status}`);
}

/** An event stream answers text/event-stream, and its first message's data is an item of the documented schema. */
async function expectStreamDocumented(route: RestRoute, path: string) {
  const documented = response(operationOf(route), 200)!.content['text/event-stream'];
  const res = await fetch(`${app.url}/api/v1${path}`, { headers: { 'X-Api-Key': api.key } });
  expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
  const reader = res.body!.getReader();
  let text = '';
  while (!/\ndata: .*\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  const data = JSON.parse(/\ndata: (.*)\n\n/.exec(text)![1]!);
  expectClosedObjects(documented['x-item-schema'], `${keyOf(route)} event`);
  expectValid(documented['x-item-schema'], data, `${keyOf(route)} event`);
}

function requestSchema(route: RestRoute): Json | undefined {
  return operationOf(route).requestBody?.content?.['application/json']?.schema;
}

// ---------------------------------------------------------------------------------------
// Data the cases need, made through the API.

const unique = () => Math.random().toString(36).slice(2, 10);
const created = async (reply: Promise<Reply>) => {
  const r = await reply;
  expect(r.status, r.text).toBe(201);
  return r.body;
};

let f: Json;

async function fixtures() {
  const user = await created(api.post('/users', { name: 'Owner', email: `owner-${unique()}@example.com` }));
  await created(api.post('/property-definitions', { object: 'contact', key: 'tier', label: 'Tier', type: 'enum', options: ['gold', 'silver'] }));
  const product = await created(api.post('/products', { name: 'Seat', type: 'product', price: 19.99, currency: 'USD', unit: 'seat' }));
  const company = await created(api.post('/companies', { name: 'Acme', domain: 'acme.example' }));
  const contact = await created(api.post('/contacts', { first_name: 'Ada', email: `ada-${unique()}@example.com`, company_ids: [company.id], properties: { tier: 'gold' } }));
  const pipeline = await created(api.post('/pipelines', { name: 'Sales', stages: [{ name: 'Lead' }, { name: 'Won', probability: 100 }] }));
  const deal = await created(api.post('/deals', { name: 'Big one', deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id }));
  const task = await created(api.post('/tasks', { title: 'Call back' }));
  const status = await created(api.post('/ticket-statuses', { name: `Open ${unique()}` }));
  const ticket = await created(api.post('/tickets', { title: 'Broken', ticket_status_id: status.id }));
  const note = await created(api.post('/notes', { body: 'Met at the fair', author_id: user.id, contact_ids: [contact.id], deal_ids: [deal.id] }));
  const account = await created(api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'test' }));
  const link = await created(api.post('/payment-links', { name: 'Plan', payment_provider_account_id: account.id, currency: 'USD', product_ids: [product.id] }));
  const coupon = await created(api.post('/payment-coupons', { code: `C${unique()}`, type: 'percent', value: 10, payment_link_id: link.id }));
  const transaction = await created(api.post('/payment-transactions', { payment_link_id: link.id, provider_reference: `pi_${unique()}`, amount: 19.99, currency: 'USD' }));
  const endpoint = await created(api.post('/webhook-endpoints', { url: 'https://93.184.216.34/hook', events: ['contact.*'] }));
  const delivery = await created(api.post(`/webhook-endpoints/${endpoint.id}/test`));
  const ids: Record<string, string> = {
    users: user.id,
    'property-definitions': (await api.get('/property-definitions?object=contact')).body.data[0].id,
    products: product.id,
    companies: company.id,
    contacts: contact.id,
    pipelines: pipeline.id,
    deals: deal.id,
    tasks: task.id,
    'ticket-statuses': status.id,
    tickets: ticket.id,
    notes: note.id,
    'payment-provider-accounts': account.id,
    'payment-links': link.id,
    'payment-coupons': coupon.id,
    'payment-transactions': transaction.id,
    'webhook-endpoints': endpoint.id,
    'webhook-deliveries': delivery.id,
  };
  return { user, product, company, contact, pipeline, deal, status, account, link, transaction, ids };
}

/** A route's path with the fixture of its resource as `{id}`. */
const concrete = (path: string) => path.replace('{id}', () => f.ids[path.split('/')[1]!]);

// ---------------------------------------------------------------------------------------
// One case per route: the requests to make (path with its query, and body). The route's
// method is used; a route of the table without a case fails below.

interface Call {
  path: string;
  body?: unknown;
}
type Case = () => Promise<Call[]>;

/** A record made only to be deleted. */
const doomed = async (path: string, body: unknown) => (await created(api.post(path, body))).id as string;

type Method = RestRoute['method'];

/** A list call walked by cursor instead of page. */
function byCursor(path: string): string {
  const url = new URL(path, 'http://x');
  url.searchParams.delete('page');
  url.searchParams.set('cursor', '');
  url.searchParams.set('sort', '-updated_at');
  return `${url.pathname}${url.search}`;
}

/** The five cases of a resource's routes (`except` those it does not have); `list` is the list call's path and query. */
function crud(resource: string, create: () => unknown, update: unknown, list: () => string = () => `/${resource}?page=1&per_page=5`, except: string[] = []): Record<string, Case> {
  const all: Record<string, Case> = {
    // Both envelopes: by page, and by cursor (API.md section 8).
    [`GET /${resource}`]: async () => [{ path: list() }, { path: byCursor(list()) }],
    [`GET /${resource}/{id}`]: async () => [{ path: concrete(`/${resource}/{id}`) }],
    [`POST /${resource}`]: async () => [{ path: `/${resource}`, body: create() }],
    [`PUT /${resource}/{id}`]: async () => [{ path: concrete(`/${resource}/{id}`), body: update }],
    [`DELETE /${resource}/{id}`]: async () => [{ path: `/${resource}/${await doomed(`/${resource}`, create())}` }],
  };
  return Object.fromEntries(Object.entries(all).filter(([key]) => !except.includes(key.split(' ')[0] as Method)));
}

/** A record made and deleted: in the trash. */
async function doomedInTrash(path: string, body: unknown): Promise<string> {
  const id = await doomed(path, body);
  expect((await api.delete(`${path}/${id}`)).status).toBe(204);
  return id;
}

/** What each trashable resource's restore case deletes first. */
const TRASHED: Record<string, () => unknown> = {
  contacts: () => ({ first_name: 'Back', email: `back-${unique()}@example.com` }),
  companies: () => ({ name: 'Back Inc' }),
  deals: () => ({ name: 'Back', deal_stage_external_id: f.pipeline.stages[0].external_id, user_id: f.user.id }),
  products: () => ({ name: 'Back', type: 'service', price: 1, currency: 'USD', unit: 'h' }),
  tasks: () => ({ title: 'Back' }),
  tickets: () => ({ title: 'Back', ticket_status_id: f.status.id }),
  notes: () => ({ body: 'Back', contact_ids: [f.contact.id] }),
};

const cases: Record<string, Case> = {
  'GET /workspace': async () => [{ path: '/workspace' }],
  'GET /contacts/export': async () => [{ path: '/contacts/export?search=ada' }],
  'GET /companies/export': async () => [{ path: '/companies/export?sort=-name' }],
  'GET /deals/export': async () => [{ path: `/deals/export?pipeline_id=${f.pipeline.id}` }],
  'GET /products/export': async () => [{ path: '/products/export?is_active=true' }],
  'GET /payment-transactions/export': async () => [{ path: '/payment-transactions/export?status=pending' }],
  'PUT /workspace': async () => [{ path: '/workspace', body: { default_currency: 'USD' } }],
  ...crud('users', () => ({ name: 'Grace', email: `grace-${unique()}@example.com` }), { name: 'Grace H.' }),
  ...crud('property-definitions', () => ({ object: 'deal', key: `k_${unique()}`, label: 'Size', type: 'number' }), { label: 'Tier level' }, () => '/property-definitions?object=contact'),
  ...crud('products', () => ({ name: 'Hour', type: 'service', price: 120.5, cost: 40, currency: 'USD', unit: 'hour', tax_rate: 20 }), { price: 99, description: null }, () => '/products?is_active=true&type=product&search=seat'),
  ...crud('companies', () => ({ name: 'Globex', domain: `${unique()}.example`, contact_ids: [f.contact.id] }), { notes: 'Key account' }, () => '/companies?per_page=2'),
  ...crud('contacts', () => ({ first_name: 'Alan', last_name: 'Turing', email: `alan-${unique()}@example.com`, properties: { tier: 'silver' } }), { notes: 'Met at a fair', properties: { tier: null } }, () => '/contacts?per_page=3&search=ada'),
  'PUT /contacts/upsert': async () => {
    const email = `upsert-${unique()}@example.com`;
    // The first creates (201), the second updates (200): both statuses are documented.
    return [
      { path: '/contacts/upsert', body: { first_name: 'Barbara', email } },
      { path: '/contacts/upsert', body: { first_name: 'Barbara', last_name: 'Liskov', email } },
    ];
  },
  ...crud('pipelines', () => ({ name: 'Renewals', description: 'Yearly', stages: [{ name: 'Due', color: '#FF0000' }, { name: 'Renewed', probability: 100 }] }), {
    name: 'Sales (new)',
    stages: [{ name: 'Lead' }, { name: 'Won', probability: 100 }, { name: 'Lost' }],
  }),
  ...crud(
    'deals',
    () => ({ name: 'Deal', estimated_value: 1000.5, expected_close_date: '2026-12-31', deal_stage_external_id: f.pipeline.stages[1].external_id, user_id: f.user.id, contact_ids: [f.contact.id], product_ids: [f.product.id] }),
    { name: 'Bigger one', expected_close_date: null },
    () => `/deals?per_page=5&pipeline_id=${f.pipeline.id}`,
  ),
  ...crud('tasks', () => ({ title: 'Send quote', due_date: '2026-11-30', priority: 'high', owner_ids: [f.user.id], assignee_ids: [f.user.id] }), { is_done: true }, () => '/tasks?is_done=false'),
  ...crud('ticket-statuses', () => ({ name: `Closed ${unique()}`, is_closed: true }), { order: 5 }),
  ...crud('tickets', () => ({ title: 'Slow page', description: 'Loads in 9 s', ticket_status_id: f.status.id }), { title: 'Very slow page' }, () => `/tickets?ticket_status_id=${f.status.id}`),
  ...crud('notes', () => ({ body: 'Called back', contact_ids: [f.contact.id], company_ids: [f.company.id] }), { pinned: true }, () => `/notes?contact_id=${f.contact.id}`),
  'GET /notes/export': async () => [{ path: `/notes/export?deal_id=${f.deal.id}` }],
  // The trash (API.md section 12): each restore route with a record deleted for it, the list, the purge.
  ...Object.fromEntries(
    Object.entries(TRASHED).map(([path, body]) => [`POST /${path}/{id}/restore`, async () => [{ path: `/${path}/${await doomedInTrash(`/${path}`, body())}/restore` }]]),
  ),
  'GET /trash': async () => {
    await doomedInTrash('/tasks', { title: 'Gone' });
    return [{ path: '/trash?type=tasks&per_page=5' }, { path: '/trash?cursor=&sort=deleted_at' }];
  },
  'GET /contacts/duplicates': async () => {
    await doomed('/contacts', { first_name: 'Twin', last_name: 'One', email: `twin-${unique()}@dup.example` });
    await doomed('/contacts', { first_name: 'twin', last_name: 'one', email: `twin-${unique()}@dup.example` });
    return [{ path: '/contacts/duplicates?per_page=1' }, { path: '/contacts/duplicates?cursor=' }];
  },
  'GET /companies/duplicates': async () => {
    await doomed('/companies', { name: 'Dup Inc' });
    await doomed('/companies', { name: 'dup' });
    return [{ path: '/companies/duplicates' }];
  },
  'POST /contacts/{id}/merge': async () => [{ path: `/contacts/${await doomed('/contacts', TRASHED.contacts!())}/merge`, body: { source_ids: [await doomed('/contacts', TRASHED.contacts!())] } }],
  'POST /companies/{id}/merge': async () => [{ path: `/companies/${await doomed('/companies', { name: 'Keep' })}/merge`, body: { source_ids: [await doomed('/companies', { name: 'Fold' })] } }],
  'DELETE /trash/{type}/{id}': async () => [{ path: `/trash/tasks/${await doomedInTrash('/tasks', { title: 'Gone' })}` }],
  'GET /contacts/{id}/timeline': async () => [{ path: `/contacts/${f.contact.id}/timeline?per_page=2` }, { path: `/contacts/${f.contact.id}/timeline?kinds=note,change&cursor=` }],
  'GET /companies/{id}/timeline': async () => [{ path: `/companies/${f.company.id}/timeline` }],
  'GET /deals/{id}/timeline': async () => [{ path: `/deals/${f.deal.id}/timeline?kinds=change` }],
  ...crud('payment-provider-accounts', () => ({ name: `Adyen ${unique()}`, provider: 'test' }), { name: 'Renamed' }, undefined, ['DELETE']),
  ...crud('payment-links', () => ({ name: 'Yearly', amount: 199, currency: 'EUR', payment_provider_account_id: f.account.id, is_recurring: true, interval_unit: 'year', product_ids: [f.product.id] }), { description: 'Pay once a year' }, undefined, ['DELETE']),
  // Batches (API.md section 8): `{"inputs": [...]}` in, `{"data": [...]}` out.
  'POST /contacts/batch': async () => [{ path: '/contacts/batch', body: { inputs: [{ first_name: 'Bea', email: `bea-${unique()}@example.com`, properties: { tier: 'gold' } }, { first_name: 'Cy', email: `cy-${unique()}@example.com` }] } }],
  'PUT /contacts/batch': async () => [{ path: '/contacts/batch', body: { inputs: [{ id: f.contact.id, notes: 'Batched' }] } }],
  'PUT /contacts/batch/upsert': async () => [{ path: '/contacts/batch/upsert', body: { inputs: [{ first_name: 'Ada', email: f.contact.email }, { first_name: 'Dee', email: `dee-${unique()}@example.com` }] } }],
  'POST /companies/batch': async () => [{ path: '/companies/batch', body: { inputs: [{ name: 'Initech', contact_ids: [f.contact.id] }, { name: 'Umbrella', domain: `${unique()}.example` }] } }],
  'PUT /companies/batch': async () => [{ path: '/companies/batch', body: { inputs: [{ id: f.company.id, notes: 'Batched' }] } }],
  'POST /products/batch': async () => [{ path: '/products/batch', body: { inputs: [{ name: 'Day', type: 'service', price: 800, currency: 'EUR', unit: 'day', sku: `D-${unique()}` }] } }],
  'PUT /products/batch': async () => [{ path: '/products/batch', body: { inputs: [{ id: f.product.id, tax_rate: 7.5 }] } }],
  'POST /deals/batch': async () => [{ path: '/deals/batch', body: { inputs: [{ name: 'Batch deal', deal_stage_external_id: f.pipeline.stages[0].external_id, user_id: f.user.id, product_ids: [f.product.id] }] } }],
  'PUT /deals/batch': async () => [{ path: '/deals/batch', body: { inputs: [{ id: f.deal.id, estimated_value: 12.5 }] } }],
  'POST /tasks/batch': async () => [{ path: '/tasks/batch', body: { inputs: [{ title: 'One' }, { title: 'Two', priority: 'urgent', owner_ids: [f.user.id] }] } }],
  'PUT /tasks/batch': async () => [{ path: '/tasks/batch', body: { inputs: [{ id: f.ids.tasks, is_done: true }] } }],
  'POST /payment-links/{id}/activate': async () => [{ path: concrete('/payment-links/{id}/activate') }],
  'POST /payment-links/{id}/deactivate': async () => [{ path: concrete('/payment-links/{id}/deactivate') }],
  ...crud('payment-coupons', () => ({ code: `SAVE${unique()}`, type: 'amount', value: 5, max_redemptions: 10, expires_at: '2027-01-01T00:00:00.000Z', payment_link_id: f.link.id }), { code: `SAVE${unique()}`, type: 'percent', value: 15, is_active: false }),
  ...crud('payment-transactions', () => ({}), {}, () => '/payment-transactions?status=pending&per_page=5', ['POST', 'PUT', 'DELETE']),
  ...crud('webhook-endpoints', () => ({ url: 'https://93.184.216.34/other', description: 'Sync', events: ['deal.*', 'contact.created'] }), { is_active: false, description: null }),
  'POST /webhook-endpoints/{id}/rotate-secret': async () => [{ path: concrete('/webhook-endpoints/{id}/rotate-secret') }],
  'POST /webhook-endpoints/{id}/test': async () => [{ path: concrete('/webhook-endpoints/{id}/test') }],
  'GET /webhook-endpoints/{id}/deliveries': async () => [{ path: `${concrete('/webhook-endpoints/{id}/deliveries')}?status=pending&per_page=5` }],
  'POST /webhook-endpoints/{id}/replay': async () => [{ path: concrete('/webhook-endpoints/{id}/replay'), body: { since: '2026-01-01T00:00:00.000Z' } }],
  'GET /webhook-deliveries/{id}': async () => [{ path: concrete('/webhook-deliveries/{id}') }],
  'POST /webhook-deliveries/{id}/retry': async () => [{ path: concrete('/webhook-deliveries/{id}/retry') }],
  'GET /events': async () => [{ path: `/events?per_page=5&type=contact.*&record_id=${f.contact.id}&created_since=2026-01-01T00:00:00.000Z` }],
  'GET /reports/pipeline': async () => [
    { path: `/reports/pipeline?pipeline_id=${f.pipeline.id}` },
    { path: `/reports/pipeline?pipeline_id=${f.pipeline.id}&group_by=user` },
    { path: '/reports/pipeline?group_by=expected_close_month&expected_close_to=2030-01-01' },
  ],
  'GET /reports/payments': async () => [{ path: '/reports/payments' }, { path: '/reports/payments?group_by=payment_link&status=pending' }, { path: '/reports/payments?group_by=week&currency=USD' }],
  'GET /events/stream': async () => {
    const newest = await api.get('/events?per_page=2');
    return [{ path: `/events/stream?since=${newest.body.data[1].id}` }];
  },
  'GET /search': async () => [{ path: '/search?q=ada' }, { path: '/search?q=a&types=contacts,products&per_page=2' }],
  'GET /events/{id}': async () => {
    const newest = await api.get('/events?per_page=1');
    return [{ path: `/events/${newest.body.data[0].id}` }];
  },
  'POST /payment-transactions': async () => {
    const body = { payment_link_id: f.link.id, provider_reference: `pi_${unique()}`, amount: 10, currency: 'USD', status: 'processing', metadata: { order: 42 } };
    // Stored (201), then the same delivery again (200).
    return [
      { path: '/payment-transactions', body },
      { path: '/payment-transactions', body },
    ];
  },
  // Refunds (API.md section 11) of a paid transaction of the test provider: one taken, one over what remains (422).
  'POST /payment-transactions/{id}/refunds': async () => {
    const paid = await created(api.post('/payment-transactions', { payment_link_id: f.link.id, provider_reference: `pi_${unique()}`, amount: 10, currency: 'USD', status: 'paid' }));
    return [
      { path: `/payment-transactions/${paid.id}/refunds`, body: { amount: 4, reason: 'duplicate', metadata: { ticket: 'T-1' } } },
      { path: `/payment-transactions/${paid.id}/refunds`, body: {} },
    ];
  },
  'GET /refunds': async () => [{ path: '/refunds?status=succeeded&per_page=5' }, { path: byCursor('/refunds?per_page=5') }],
  'GET /refunds/{id}': async () => {
    const paid = await created(api.post('/payment-transactions', { payment_link_id: f.link.id, provider_reference: `pi_${unique()}`, amount: 10, currency: 'USD', status: 'paid' }));
    const refund = await created(api.post(`/payment-transactions/${paid.id}/refunds`, {}));
    return [{ path: `/refunds/${refund.id}` }];
  },
  'POST /payment-transactions/{id}/events': async () => {
    const body = { type: 'payment.paid', status: 'paid', provider_reference: `evt_${unique()}`, payload: { id: 'evt' }, occurred_at: '2026-11-22T10:15:00.000Z' };
    return [
      { path: concrete('/payment-transactions/{id}/events'), body },
      { path: concrete('/payment-transactions/{id}/events'), body },
    ];
  },
};

beforeAll(async () => {
  app = await startApp();
  api = await newClient(app);
  served = await send(`${app.url}/api/v1/openapi.json`, 'GET');
  doc = served.body;
  f = await fixtures();
});
afterAll(() => app.close());

describe('GET /api/v1/openapi.json', () => {
  it('is served without a key, as OpenAPI 3.1', () => {
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toBe('Salesgraph');
    expect(doc.components.securitySchemes.ApiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }));
    expect(doc.security).toEqual([{ ApiKey: [] }]);
  });

  it('has every route of the table, and only those, with its error answers', () => {
    const operations = Object.values<Json>(doc.paths).flatMap((item) => Object.keys(item).filter((k) => k !== 'servers'));
    // The keyed routes, the public ones, and the five payment pages.
    expect(operations.length).toBe(restRoutes.length + publicRoutes.length + 5);
    for (const route of restRoutes) {
      const op = operationOf(route);
      expect(op, keyOf(route)).toBeDefined();
      const statuses = Object.keys(op.responses);
      expect(statuses, keyOf(route)).toEqual(expect.arrayContaining(['401', '422', '429', '500']));
      expect(statuses.includes('404'), `${keyOf(route)}: 404 iff it has an {id}`).toBe(route.path.includes('{id}'));
      for (const status of ['400', '413', '415']) expect(statuses.includes(status), `${keyOf(route)}: ${status} iff it may carry a body`).toBe(route.method !== 'GET');
      expect(Boolean(op.requestBody), keyOf(route)).toBe(takesBody(route));
      const idempotency = (op.parameters ?? []).some((p: Json) => p.$ref === '#/components/parameters/IdempotencyKey');
      expect(idempotency, `${keyOf(route)}: Idempotency-Key on POST`).toBe(route.method === 'POST');
      if (route.method === 'DELETE') expect(response(op, 204)?.content, keyOf(route)).toBeUndefined();
    }
  });

  it('documents the public routes (no key; a provider webhook signed), the payment pages, and e-mails as e-mails', () => {
    for (const route of publicRoutes) {
      const op = operationOf(route);
      const webhook = route.path.startsWith('/provider-webhooks/');
      expect([keyOf(route), op.security, Object.keys(op.responses).includes('401'), Object.keys(op.responses).includes('403')]).toEqual([
        keyOf(route),
        webhook ? [{ WebhookSignature: [] }] : [],
        webhook,
        false,
      ]);
    }
    expect(doc.components.securitySchemes.WebhookSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'webhook-signature' });
    for (const [path, methods] of [['/pay/{publicToken}', ['get', 'post']], ['/pay/checkouts/{checkoutId}', ['get']], ['/pay/checkouts/{checkoutId}/test-provider', ['get', 'post']]] as const) {
      expect([path, doc.paths[path].servers]).toEqual([path, [{ url: '/', description: 'The service itself.' }]]);
      for (const method of methods) expect([path, method, doc.paths[path][method].security, Object.keys(doc.paths[path][method].responses).includes('404')]).toEqual([path, method, [], true]);
    }
    expect(doc.paths['/pay/{publicToken}'].get.responses['200'].content['text/html']).toBeDefined();
    for (const name of ['CreateContactInput', 'UpdateContactInput', 'Contact', 'CreateUserInput', 'User']) {
      expect([name, doc.components.schemas[name].properties.email.format]).toEqual([name, 'email']);
    }
  });

  it('documents both answers of a route whose status depends on the result', () => {
    for (const key of ['PUT /contacts/upsert', 'POST /payment-transactions', 'POST /payment-transactions/{id}/events']) {
      const [method, path] = key.split(' ') as [RestRoute['method'], RestRoute['path']];
      expect(Object.keys(operationOf({ method, path }).responses), key).toEqual(expect.arrayContaining(['200', '201']));
    }
  });

  it('describes list parameters: page, per_page 1..100, sort, cursor, the times and the filter fields', () => {
    const op = operationOf({ method: 'GET', path: '/products' });
    const params = op.parameters.map((p: Json) => (p.$ref ? resolve(p.$ref) : p));
    const byName = Object.fromEntries(params.map((p: Json) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(['created_since', 'cursor', 'is_active', 'page', 'per_page', 'search', 'sort', 'type', 'updated_since']);
    expect(byName.updated_since.schema).toEqual({ type: 'string', format: 'date-time' });
    // Events have no update time: no updated_since.
    const events = operationOf({ method: 'GET', path: '/events' }).parameters.map((p: Json) => (p.$ref ? resolve(p.$ref) : p).name);
    expect(events).toContain('created_since');
    expect(events).not.toContain('updated_since');
    expect(byName.per_page.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(byName.page.schema).toMatchObject({ type: 'integer', minimum: 1 });
  });
});

describe('the generator', () => {
  const build = (route: RestRoute) => buildOpenApiDocument({ schema, routes: [route], inputRules, version: '0.0.0' });
  const upsert = 'mutation ($input: CreateContactInput!) { upsertContact(input: $input) { created contact { id email } } }';

  it('follows an unwrap to the part of the result it returns, and refuses one it cannot follow', () => {
    const picked = build({ method: 'PUT', path: '/x', document: upsert, unwrap: (d) => d.upsertContact.contact });
    expect(Object.keys(picked.components.schemas.Contact!.properties as Json)).toEqual(['id', 'email']);
    expect(() => build({ method: 'PUT', path: '/x', document: upsert, unwrap: (d) => ({ ...d.upsertContact.contact }) })).toThrow(/unwrap/);
  });

  it('documents every status a status function can give, and refuses one it cannot enumerate', () => {
    const both = build({ method: 'PUT', path: '/x', document: upsert, status: (d) => (d.upsertContact.created ? 201 : 200), unwrap: (d) => d.upsertContact.contact });
    expect(Object.keys(both.paths['/x']!.put!.responses as Json)).toEqual(expect.arrayContaining(['200', '201']));
    expect(() => build({ method: 'PUT', path: '/x', document: upsert, status: (d) => (d.upsertContact.contact.email ? 201 : 200) })).toThrow(/status reads upsertContact\.contact\.email/);
  });
});

describe('real responses match the document', () => {
  it('has a case for every route and no case for a route that is gone', () => {
    expect(Object.keys(cases).sort()).toEqual(restRoutes.map(keyOf).sort());
  });

  for (const route of restRoutes) {
    it(keyOf(route), async () => {
      const make = cases[keyOf(route)];
      expect(make, `no case for ${keyOf(route)} in test/openapi.test.ts: add one`).toBeDefined();
      const calls = await make!();
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        const schema = requestSchema(route);
        if (call.body !== undefined) {
          expect(schema, `${keyOf(route)} documents its body`).toBeDefined();
          expectValid(schema, call.body, `${keyOf(route)} request body`);
        }
        if (route.stream) {
          await expectStreamDocumented(route, call.path);
          continue;
        }
        const reply = await api.request(route.method, call.path, call.body === undefined ? {} : { body: call.body });
        expect(reply.status, `${keyOf(route)} ${call.path}: ${reply.text.slice(0, 500)}`).toBeLessThan(300);
        expectDocumented(route, reply);
      }
    });
  }
});

describe('error answers match the document', () => {
  const errorSchema = (route: RestRoute, status: number) => response(operationOf(route), status)!.content['application/json'];
  const get = restRoutes.find((r) => keyOf(r) === 'GET /contacts/{id}')!;
  const create = restRoutes.find((r) => keyOf(r) === 'POST /users')!;

  it('401 without a key, as its example says', async () => {
    const reply = await send(`${app.url}/api/v1/contacts/${f.contact.id}`, 'GET');
    expect(reply.status).toBe(401);
    expectDocumented(get, reply);
    expect(reply.body).toEqual(errorSchema(get, 401).example);
  });

  it('404 for an unknown id', async () => {
    const reply = await api.get('/contacts/01JUNKJUNKJUNKJUNKJUNKJUNK');
    expect(reply.status).toBe(404);
    expectDocumented(get, reply);
    expect(reply.body).toEqual({ message: 'Contact not found.' });
  });

  it('400 and 415 for unreadable bodies, as their examples say', async () => {
    const malformed = await api.request('POST', '/users', { raw: '{"name":', headers: { 'Content-Type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expectDocumented(create, malformed);
    expect(malformed.body).toEqual(errorSchema(create, 400).example);
    const text = await api.request('POST', '/users', { raw: 'name=x', headers: { 'Content-Type': 'text/plain' } });
    expect(text.status).toBe(415);
    expectDocumented(create, text);
    expect(text.body).toEqual(errorSchema(create, 415).example);
  });

  it('413 and 429, as their examples say, with Retry-After on 429', async () => {
    const big = await api.request('POST', '/users', { raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }), headers: { 'Content-Type': 'application/json' } });
    expect(big.status).toBe(413);
    expectDocumented(create, big);
    expect(big.body).toEqual(errorSchema(create, 413).example);
    const limited = await startApp({ rateLimitPerMinute: 1 });
    try {
      const client = await newClient(limited);
      expect((await client.get(`/contacts/${f.contact.id}`)).status).toBe(404);
      const refused = await client.get(`/contacts/${f.contact.id}`);
      expect(refused.status).toBe(429);
      expectDocumented(get, refused);
      expect(refused.body).toEqual(errorSchema(get, 429).example);
    } finally {
      await limited.close();
    }
  });

  it('422 on every route with required body fields: each reported field is in the schema, each required one is reported', async () => {
    const withRequired = restRoutes.filter((r) => takesBody(r) && (inline(requestSchema(r)).required ?? []).length > 0);
    expect(withRequired.length).toBeGreaterThan(10);
    for (const route of withRequired) {
      const schema = inline(requestSchema(route));
      const reply = await api.request(route.method, concrete(route.path), { body: {} });
      expect(reply.status, keyOf(route)).toBe(422);
      expectDocumented(route, reply);
      expect(reply.body.message).toBe(errorSchema(route, 422).example.message);
      const reported = Object.keys(reply.body.errors);
      for (const field of reported) expect(Object.keys(schema.properties), `${keyOf(route)} reports ${field}`).toContain(field.split('.')[0]);
      expect(reported, keyOf(route)).toEqual(expect.arrayContaining(schema.required));
    }
  });

  it('422 fields of a wrong body are the documented snake_case names', async () => {
    const route = restRoutes.find((r) => keyOf(r) === 'POST /pipelines')!;
    const reply = await api.post('/pipelines', { name: '', stages: [{ name: 'A' }, { name: 'A', probability: 101 }] });
    expect(reply.status).toBe(422);
    expectDocumented(route, reply);
    const schema = inline(requestSchema(route));
    expect(Object.keys(reply.body.errors).sort()).toEqual(['name', 'stages.1.name', 'stages.1.probability']);
    expect(Object.keys(schema.properties.stages.items.properties)).toEqual(expect.arrayContaining(['name', 'probability', 'external_id']));
  });
});

describe('/docs', () => {
  it('is an HTML page without a key, whose assets are same-origin and served', async () => {
    const page = await send(`${app.url}/docs`, 'GET');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const urls = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, `${app.url}/docs`));
    expect(urls.length).toBeGreaterThanOrEqual(4);
    const types: Record<string, RegExp> = { css: /^text\/css/, js: /^text\/javascript/, png: /^image\/png/ };
    for (const url of urls) {
      expect(url.origin, url.href).toBe(new URL(app.url).origin);
      const asset = await fetch(url);
      const body = await asset.arrayBuffer();
      expect(asset.status, url.href).toBe(200);
      expect(body.byteLength, url.href).toBeGreaterThan(0);
      expect(asset.headers.get('content-type'), url.href).toMatch(types[url.pathname.split('.').pop()!]!);
    }
    const init = await send(`${app.url}/docs/init.js`, 'GET');
    expect(init.text).toContain('"/api/v1/openapi.json"');
    expect(init.text).toContain('validatorUrl: null');
  });

  it('serves only its listed files', async () => {
    for (const path of ['/docs/swagger-ui-bundle.js.map', '/docs/index.html', '/docs/%2e%2e/package.json', '/docs/..%2Fpackage.json', '/docs/swagger-ui.css/x']) {
      expect((await send(`${app.url}${path}`, 'GET')).status, path).toBe(404);
    }
    const post = await send(`${app.url}/docs`, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
