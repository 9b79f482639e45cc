import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstIdAt } from '../src/db/ids.js';
import { purgeEvents } from '../src/events/retention.js';
import { schema } from './support/schema.js';
import { startBackgroundWork } from '../src/jobs/background.js';
import { restRoutes } from '../src/modules/index.js';
import { type Client, type Reply, type TestApp, countStatements, newClient, startApp } from './support/app.js';

// API.md section 6, "Events": every successful write records one event per record it
// wrote, in its transaction, with the record's REST object and the changed fields' old
// values; a refused write records none. Checked over the whole route table and every
// mutation of the schema: a write route or mutation without a case here fails.

let app: TestApp;
let api: Client;
let keyId: string;
/** Records made once for the cases to refer to. */
let f: Fixture;

interface Fixture {
  user: any;
  company: any;
  contact: any;
  product: any;
  pipeline: any;
  deal: any;
  task: any;
  status: any;
  ticket: any;
  account: any;
  link: any;
  coupon: any;
  transaction: any;
}

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter += 1)}`;
const created = async (reply: Promise<Reply>) => {
  const r = await reply;
  if (r.status !== 201) throw new Error(`expected 201, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
};

beforeAll(async () => {
  app = await startApp();
  api = await newClient(app);
  keyId = (await app.database.prisma.apiKey.findFirstOrThrow({ where: { workspaceId: api.workspaceId }, select: { id: true } })).id;
  const user = await created(api.post('/users', { name: 'Owner', email: `owner-${unique()}@example.com` }));
  const company = await created(api.post('/companies', { name: 'Acme' }));
  const contact = await created(api.post('/contacts', { first_name: 'Ada', email: `ada-${unique()}@example.com`, company_ids: [company.id] }));
  const product = await created(api.post('/products', { name: 'Seat', type: 'product', price: 10, currency: 'USD', unit: 'seat' }));
  const pipeline = await created(api.post('/pipelines', { name: 'Sales', stages: [{ name: 'New' }, { name: 'Won' }] }));
  const deal = await created(api.post('/deals', { name: 'Deal', deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id }));
  const task = await created(api.post('/tasks', { title: 'Call' }));
  const status = await created(api.post('/ticket-statuses', { name: 'Open' }));
  const ticket = await created(api.post('/tickets', { title: 'Broken', ticket_status_id: status.id }));
  const account = await created(api.post('/payment-provider-accounts', { name: 'Stripe', provider: 'test' }));
  const link = await created(api.post('/payment-links', { name: 'Link', amount: 10, currency: 'USD', payment_provider_account_id: account.id }));
  const coupon = await created(api.post('/payment-coupons', { code: `C${unique()}`, type: 'amount', value: 1, payment_link_id: link.id }));
  const transaction = await created(api.post('/payment-transactions', { payment_link_id: link.id, provider_reference: `pi_${unique()}`, amount: 10, currency: 'USD' }));
  f = { user, company, contact, product, pipeline, deal, task, status, ticket, account, link, coupon, transaction };
});

afterAll(async () => {
  await app?.close();
});

/** The REST path of a record of an event resource. */
const PATHS: Record<string, string> = {
  user: 'users',
  property_definition: 'property-definitions',
  product: 'products',
  contact: 'contacts',
  company: 'companies',
  pipeline: 'pipelines',
  deal: 'deals',
  task: 'tasks',
  ticket_status: 'ticket-statuses',
  ticket: 'tickets',
  note: 'notes',
  payment_provider_account: 'payment-provider-accounts',
  payment_link: 'payment-links',
  payment_coupon: 'payment-coupons',
  payment_transaction: 'payment-transactions',
  refund: 'refunds',
  webhook_endpoint: 'webhook-endpoints',
};

/** An expected event: its type and the id of its record. */
type Expected = [type: string, recordId: string];

interface Write {
  /** The request (REST) or the document (GraphQL). */
  send: () => Promise<Reply>;
  /** The events it must record, given its answer. */
  events: (reply: Reply) => Expected[];
}

/** A record made only to be written by a case (deleted, mostly). */
const make = async (path: string, body: unknown) => (await created(api.post(path, body))).id as string;

/** A record made and deleted (in the trash), for the restore and purge routes. */
const trashed = async (path: string, body: unknown) => {
  const id = await make(path, body);
  expect((await api.delete(`${path}/${id}`)).status).toBe(204);
  return id;
};

/** `POST /<records>/{id}/restore` for each trashable resource (API.md section 12): one `<resource>.restored` event. */
const RESTORES: Record<string, [resource: string, body: () => unknown]> = {
  contacts: ['contact', () => ({ first_name: 'Back', email: `back-${unique()}@example.com` })],
  companies: ['company', () => ({ name: 'Back Inc' })],
  deals: ['deal', () => ({ name: 'Back', deal_stage_external_id: f.pipeline.stages[0].external_id, user_id: f.user.id, contact_ids: [f.contact.id] })],
  products: ['product', () => ({ name: 'Back', type: 'service', price: 1, currency: 'USD', unit: 'h' })],
  tasks: ['task', () => ({ title: 'Back', owner_ids: [f.user.id] })],
  tickets: ['ticket', () => ({ title: 'Back', ticket_status_id: f.status.id })],
  notes: ['note', () => ({ body: 'Back', contact_ids: [f.contact.id] })],
};

const REST_WRITES: Record<string, () => Promise<Write>> = {
  ...Object.fromEntries(
    Object.entries(RESTORES).map(([path, [resource, body]]) => [
      `POST /${path}/{id}/restore`,
      async (): Promise<Write> => {
        const id = await trashed(`/${path}`, body());
        return { send: () => api.post(`/${path}/${id}/restore`), events: () => [[`${resource}.restored`, id]] };
      },
    ]),
  ),
  'POST /contacts/{id}/merge': async () => {
    const [target, source] = [await make('/contacts', { first_name: 'Keep', email: `keep-${unique()}@example.com` }), await make('/contacts', { first_name: 'Fold', email: `fold-${unique()}@example.com` })];
    return { send: () => api.post(`/contacts/${target}/merge`, { source_ids: [source] }), events: () => [['contact.merged', target], ['contact.deleted', source]] };
  },
  'POST /companies/{id}/merge': async () => {
    const [target, source] = [await make('/companies', { name: 'Keep' }), await make('/companies', { name: 'Fold', domain: 'fold.example' })];
    return { send: () => api.post(`/companies/${target}/merge`, { source_ids: [source] }), events: () => [['company.merged', target], ['company.deleted', source]] };
  },
  'DELETE /trash/{type}/{id}': async () => {
    const id = await trashed('/notes', { body: 'Gone for good', contact_ids: [f.contact.id] });
    return { send: () => api.delete(`/trash/notes/${id}`), events: () => [['note.purged', id]] };
  },
  'PUT /workspace': async () => ({ send: () => api.put('/workspace', { name: `ws-${unique()}` }), events: () => [] }),
  'POST /users': async () => ({ send: () => api.post('/users', { name: 'New', email: `new-${unique()}@example.com` }), events: (r) => [['user.created', r.body.id]] }),
  'PUT /users/{id}': async () => ({ send: () => api.put(`/users/${f.user.id}`, { name: `Renamed ${unique()}` }), events: () => [['user.updated', f.user.id]] }),
  'DELETE /users/{id}': async () => {
    const id = await make('/users', { name: 'Gone', email: `gone-${unique()}@example.com` });
    return { send: () => api.delete(`/users/${id}`), events: () => [['user.deleted', id]] };
  },
  'POST /property-definitions': async () => ({
    send: () => api.post('/property-definitions', { object: 'deal', key: `k_${unique()}`, label: 'Size', type: 'number' }),
    events: (r) => [['property_definition.created', r.body.id]],
  }),
  'PUT /property-definitions/{id}': async () => {
    const id = await make('/property-definitions', { object: 'contact', key: `k_${unique()}`, label: 'Tier', type: 'string' });
    return { send: () => api.put(`/property-definitions/${id}`, { label: 'Tier level' }), events: () => [['property_definition.updated', id]] };
  },
  'DELETE /property-definitions/{id}': async () => {
    const id = await make('/property-definitions', { object: 'contact', key: `k_${unique()}`, label: 'Tier', type: 'string' });
    return { send: () => api.delete(`/property-definitions/${id}`), events: () => [['property_definition.deleted', id]] };
  },
  'POST /products': async () => ({ send: () => api.post('/products', { name: 'Hour', type: 'service', price: 1, currency: 'USD', unit: 'h' }), events: (r) => [['product.created', r.body.id]] }),
  'PUT /products/{id}': async () => ({ send: () => api.put(`/products/${f.product.id}`, { name: `Seat ${unique()}` }), events: () => [['product.updated', f.product.id]] }),
  'DELETE /products/{id}': async () => {
    const id = await make('/products', { name: 'Old', type: 'product', price: 1, currency: 'USD', unit: 'u' });
    return { send: () => api.delete(`/products/${id}`), events: () => [['product.deleted', id]] };
  },
  'POST /companies': async () => ({ send: () => api.post('/companies', { name: 'Globex', contact_ids: [f.contact.id] }), events: (r) => [['company.created', r.body.id]] }),
  'PUT /companies/{id}': async () => ({ send: () => api.put(`/companies/${f.company.id}`, { notes: `n ${unique()}` }), events: () => [['company.updated', f.company.id]] }),
  'DELETE /companies/{id}': async () => {
    const id = await make('/companies', { name: 'Initech' });
    return { send: () => api.delete(`/companies/${id}`), events: () => [['company.deleted', id]] };
  },
  'PUT /contacts/upsert': async () => {
    const email = `up-${unique()}@example.com`;
    return { send: () => api.put('/contacts/upsert', { first_name: 'Up', email }), events: (r) => [['contact.created', r.body.id]] };
  },
  'POST /contacts': async () => ({ send: () => api.post('/contacts', { first_name: 'Alan', email: `alan-${unique()}@example.com` }), events: (r) => [['contact.created', r.body.id]] }),
  'PUT /contacts/{id}': async () => ({ send: () => api.put(`/contacts/${f.contact.id}`, { last_name: `L${unique()}`, properties: {} }), events: () => [['contact.updated', f.contact.id]] }),
  'DELETE /contacts/{id}': async () => {
    const id = await make('/contacts', { first_name: 'Gone', email: `gone-${unique()}@example.com` });
    return { send: () => api.delete(`/contacts/${id}`), events: () => [['contact.deleted', id]] };
  },
  // The first pipeline of a workspace is its default; a new default takes the flag from the old one: two records written.
  'POST /pipelines': async () => ({
    send: () => api.post('/pipelines', { name: 'Renewals', is_default: true, stages: [{ name: 'Due' }] }),
    events: (r) => [
      ['pipeline.created', r.body.id],
      ['pipeline.updated', f.pipeline.id],
    ],
  }),
  // Made the default, the pipeline takes the flag from the one that had it: that one is written too.
  'PUT /pipelines/{id}': async () => {
    const pipelines = (await api.graphql('{ pipelines(perPage: 100) { data { id isDefault } } }')).body.data.pipelines.data as { id: string; isDefault: boolean }[];
    const previous = pipelines.find((p) => p.isDefault && p.id !== f.pipeline.id);
    return {
      send: () => api.put(`/pipelines/${f.pipeline.id}`, { is_default: true, stages: [{ name: 'New', external_id: f.pipeline.stages[0].external_id }, { name: 'Won' }, { name: `Lost ${unique()}` }] }),
      events: () => [['pipeline.updated', f.pipeline.id], ...(previous ? [['pipeline.updated', previous.id] as Expected] : [])],
    };
  },
  'DELETE /pipelines/{id}': async () => {
    const id = await make('/pipelines', { name: 'Doomed', stages: [{ name: 'A' }] });
    return { send: () => api.delete(`/pipelines/${id}`), events: () => [['pipeline.deleted', id]] };
  },
  'POST /deals': async () => ({
    send: () => api.post('/deals', { name: 'Big', deal_stage_external_id: f.pipeline.stages[0].external_id, user_id: f.user.id, contact_ids: [f.contact.id], product_ids: [f.product.id] }),
    events: (r) => [['deal.created', r.body.id]],
  }),
  'PUT /deals/{id}': async () => ({ send: () => api.put(`/deals/${f.deal.id}`, { name: `Deal ${unique()}`, contact_ids: [f.contact.id] }), events: () => [['deal.updated', f.deal.id]] }),
  'DELETE /deals/{id}': async () => {
    const id = await make('/deals', { name: 'Doomed', deal_stage_external_id: f.pipeline.stages[0].external_id, user_id: f.user.id });
    return { send: () => api.delete(`/deals/${id}`), events: () => [['deal.deleted', id]] };
  },
  'POST /tasks': async () => ({ send: () => api.post('/tasks', { title: 'Quote', owner_ids: [f.user.id] }), events: (r) => [['task.created', r.body.id]] }),
  'PUT /tasks/{id}': async () => ({ send: () => api.put(`/tasks/${f.task.id}`, { is_done: true, title: `T ${unique()}` }), events: () => [['task.updated', f.task.id]] }),
  'DELETE /tasks/{id}': async () => {
    const id = await make('/tasks', { title: 'Doomed' });
    return { send: () => api.delete(`/tasks/${id}`), events: () => [['task.deleted', id]] };
  },
  'POST /ticket-statuses': async () => ({ send: () => api.post('/ticket-statuses', { name: `Closed ${unique()}`, is_closed: true }), events: (r) => [['ticket_status.created', r.body.id]] }),
  'PUT /ticket-statuses/{id}': async () => ({ send: () => api.put(`/ticket-statuses/${f.status.id}`, { order: 7 }), events: () => [['ticket_status.updated', f.status.id]] }),
  'DELETE /ticket-statuses/{id}': async () => {
    const id = await make('/ticket-statuses', { name: `Doomed ${unique()}` });
    return { send: () => api.delete(`/ticket-statuses/${id}`), events: () => [['ticket_status.deleted', id]] };
  },
  'POST /tickets': async () => ({ send: () => api.post('/tickets', { title: 'Slow', ticket_status_id: f.status.id }), events: (r) => [['ticket.created', r.body.id]] }),
  'PUT /tickets/{id}': async () => ({ send: () => api.put(`/tickets/${f.ticket.id}`, { title: `Slow ${unique()}` }), events: () => [['ticket.updated', f.ticket.id]] }),
  'DELETE /tickets/{id}': async () => {
    const id = await make('/tickets', { title: 'Doomed', ticket_status_id: f.status.id });
    return { send: () => api.delete(`/tickets/${id}`), events: () => [['ticket.deleted', id]] };
  },
  'POST /notes': async () => ({ send: () => api.post('/notes', { body: 'Called', contact_ids: [f.contact.id] }), events: (r) => [['note.created', r.body.id]] }),
  'PUT /notes/{id}': async () => {
    const id = await make('/notes', { body: 'Draft', contact_ids: [f.contact.id] });
    return { send: () => api.put(`/notes/${id}`, { body: `Final ${unique()}` }), events: () => [['note.updated', id]] };
  },
  'DELETE /notes/{id}': async () => {
    const id = await make('/notes', { body: 'Doomed', contact_ids: [f.contact.id] });
    return { send: () => api.delete(`/notes/${id}`), events: () => [['note.deleted', id]] };
  },
  'POST /payment-provider-accounts': async () => ({
    send: () => api.post('/payment-provider-accounts', { name: 'Adyen', provider: 'test' }),
    events: (r) => [['payment_provider_account.created', r.body.id]],
  }),
  'PUT /payment-provider-accounts/{id}': async () => ({
    send: () => api.put(`/payment-provider-accounts/${f.account.id}`, { name: `Renamed ${unique()}` }),
    events: () => [['payment_provider_account.updated', f.account.id]],
  }),
  'POST /payment-links': async () => ({
    send: () => api.post('/payment-links', { name: 'New link', amount: 5, currency: 'USD', payment_provider_account_id: f.account.id, product_ids: [f.product.id] }),
    events: (r) => [['payment_link.created', r.body.id]],
  }),
  'PUT /payment-links/{id}': async () => ({ send: () => api.put(`/payment-links/${f.link.id}`, { description: `d ${unique()}` }), events: () => [['payment_link.updated', f.link.id]] }),
  'POST /payment-links/{id}/activate': async () => {
    const id = await make('/payment-links', { name: 'Off', amount: 5, currency: 'USD', payment_provider_account_id: f.account.id });
    return { send: () => api.post(`/payment-links/${id}/activate`), events: () => [['payment_link.updated', id]] };
  },
  'POST /payment-links/{id}/deactivate': async () => {
    const id = await make('/payment-links', { name: 'On', amount: 5, currency: 'USD', payment_provider_account_id: f.account.id });
    expect((await api.post(`/payment-links/${id}/activate`)).status).toBe(200);
    return { send: () => api.post(`/payment-links/${id}/deactivate`), events: () => [['payment_link.updated', id]] };
  },
  'POST /payment-coupons': async () => ({
    send: () => api.post('/payment-coupons', { code: `N${unique()}`, type: 'percent', value: 5, payment_link_id: f.link.id }),
    events: (r) => [['payment_coupon.created', r.body.id]],
  }),
  'PUT /payment-coupons/{id}': async () => ({ send: () => api.put(`/payment-coupons/${f.coupon.id}`, { code: f.coupon.code, type: 'amount', value: 2 }), events: () => [['payment_coupon.updated', f.coupon.id]] }),
  'DELETE /payment-coupons/{id}': async () => {
    const id = await make('/payment-coupons', { code: `D${unique()}`, type: 'amount', value: 1, payment_link_id: f.link.id });
    return { send: () => api.delete(`/payment-coupons/${id}`), events: () => [['payment_coupon.deleted', id]] };
  },
  'POST /payment-transactions': async () => ({
    send: () => api.post('/payment-transactions', { payment_link_id: f.link.id, provider_reference: `pi_${unique()}`, amount: 3, currency: 'USD' }),
    events: (r) => [['payment_transaction.created', r.body.id]],
  }),
  // A refund (test provider: it succeeds at once) records itself, and the transaction whose refundable amount it took.
  'POST /payment-transactions/{id}/refunds': async () => {
    const id = await make('/payment-transactions', { payment_link_id: f.link.id, provider_reference: `pi_${unique()}`, amount: 3, currency: 'USD', status: 'paid' });
    return {
      send: () => api.post(`/payment-transactions/${id}/refunds`, { amount: 1 }),
      events: (r: Reply) => [['refund.created', r.body.id], ['payment_transaction.updated', id], ['refund.succeeded', r.body.id]],
    };
  },
  // A provider event is a change of its transaction (here its status moves to paid).
  'POST /payment-transactions/{id}/events': async () => {
    const id = await make('/payment-transactions', { payment_link_id: f.link.id, provider_reference: `pi_${unique()}`, amount: 3, currency: 'USD' });
    return {
      send: () => api.post(`/payment-transactions/${id}/events`, { type: 'payment.paid', status: 'paid', provider_reference: `evt_${unique()}`, occurred_at: new Date().toISOString() }),
      events: () => [['payment_transaction.updated', id]],
    };
  },
};

Object.assign(REST_WRITES, {
  'POST /webhook-endpoints': async () => ({ send: () => api.post('/webhook-endpoints', { url: 'https://93.184.216.34/a', events: ['*'] }), events: (r: Reply) => [['webhook_endpoint.created', r.body.id]] }),
  'PUT /webhook-endpoints/{id}': async () => {
    const id = await make('/webhook-endpoints', { url: 'https://93.184.216.34/b', events: ['deal.*'] });
    return { send: () => api.put(`/webhook-endpoints/${id}`, { events: ['deal.created'] }), events: () => [['webhook_endpoint.updated', id]] };
  },
  'DELETE /webhook-endpoints/{id}': async () => {
    const id = await make('/webhook-endpoints', { url: 'https://93.184.216.34/c', events: ['deal.*'] });
    return { send: () => api.delete(`/webhook-endpoints/${id}`), events: () => [['webhook_endpoint.deleted', id]] };
  },
  // A new secret is a change of the endpoint (its updated_at), though the secret is never in an event.
  'POST /webhook-endpoints/{id}/rotate-secret': async () => {
    const id = await make('/webhook-endpoints', { url: 'https://93.184.216.34/d', events: ['deal.*'] });
    return { send: () => api.post(`/webhook-endpoints/${id}/rotate-secret`), events: () => [['webhook_endpoint.updated', id]] };
  },
  // Deliveries are not records with events: sending a test, replaying and retrying record none.
  'POST /webhook-endpoints/{id}/test': async () => {
    const id = await make('/webhook-endpoints', { url: 'https://93.184.216.34/e', events: ['deal.*'] });
    return { send: () => api.post(`/webhook-endpoints/${id}/test`), events: () => [] };
  },
  'POST /webhook-endpoints/{id}/replay': async () => {
    const id = await make('/webhook-endpoints', { url: 'https://93.184.216.34/f', events: ['deal.*'] });
    return { send: () => api.post(`/webhook-endpoints/${id}/replay`, { since: '2026-01-01T00:00:00.000Z' }), events: () => [] };
  },
  'POST /webhook-deliveries/{id}/retry': async () => {
    const endpointId = await make('/webhook-endpoints', { url: 'https://93.184.216.34/g', events: ['deal.*'] });
    const deliveryId = await make(`/webhook-endpoints/${endpointId}/test`, {});
    return { send: () => api.post(`/webhook-deliveries/${deliveryId}/retry`), events: () => [] };
  },
} satisfies Record<string, () => Promise<Write>>);

// Batches (API.md section 8): one event per record, in input order (an upsert's creations first).
const batchEvents = (type: string) => (r: Reply): Expected[] => (r.body.data as { id: string }[]).map((record) => [type, record.id]);
Object.assign(REST_WRITES, {
  'POST /contacts/batch': async () => ({
    send: () => api.post('/contacts/batch', { inputs: [{ first_name: 'B1', email: `b1-${unique()}@example.com` }, { first_name: 'B2', email: `b2-${unique()}@example.com`, company_ids: [f.company.id] }] }),
    events: batchEvents('contact.created'),
  }),
  'PUT /contacts/batch': async () => {
    const id = await make('/contacts', { first_name: 'Batch', email: `batch-${unique()}@example.com` });
    return { send: () => api.put('/contacts/batch', { inputs: [{ id, notes: `n ${unique()}` }, { id: f.contact.id, last_name: `L${unique()}` }] }), events: batchEvents('contact.updated') };
  },
  'PUT /contacts/batch/upsert': async () => ({
    send: () => api.put('/contacts/batch/upsert', { inputs: [{ first_name: 'New', email: `up-${unique()}@example.com` }, { first_name: f.contact.first_name, email: f.contact.email, notes: `n ${unique()}` }] }),
    events: (r: Reply) => [['contact.created', r.body.data[0].id], ['contact.updated', f.contact.id]],
  }),
  'POST /companies/batch': async () => ({ send: () => api.post('/companies/batch', { inputs: [{ name: 'B1' }, { name: 'B2', contact_ids: [f.contact.id] }] }), events: batchEvents('company.created') }),
  'PUT /companies/batch': async () => {
    const id = await make('/companies', { name: 'Batch' });
    return { send: () => api.put('/companies/batch', { inputs: [{ id, notes: `n ${unique()}` }, { id: f.company.id, notes: `n ${unique()}` }] }), events: batchEvents('company.updated') };
  },
  'POST /products/batch': async () => ({
    send: () => api.post('/products/batch', { inputs: [1, 2].map((i) => ({ name: `B${i}`, type: 'product', price: i, currency: 'USD', unit: 'u' })) }),
    events: batchEvents('product.created'),
  }),
  'PUT /products/batch': async () => {
    const id = await make('/products', { name: 'Batch', type: 'product', price: 1, currency: 'USD', unit: 'u' });
    return { send: () => api.put('/products/batch', { inputs: [{ id, price: 2 }, { id: f.product.id, name: `Seat ${unique()}` }] }), events: batchEvents('product.updated') };
  },
  'POST /deals/batch': async () => ({
    send: () =>
      api.post('/deals/batch', {
        inputs: [
          { name: 'B1', deal_stage_external_id: f.pipeline.stages[0].external_id, user_id: f.user.id },
          { name: 'B2', deal_stage_external_id: f.pipeline.stages[0].external_id, user_id: f.user.id, product_ids: [f.product.id] },
        ],
      }),
    events: batchEvents('deal.created'),
  }),
  'PUT /deals/batch': async () => {
    const id = await make('/deals', { name: 'Batch', deal_stage_external_id: f.pipeline.stages[0].external_id, user_id: f.user.id });
    return { send: () => api.put('/deals/batch', { inputs: [{ id, estimated_value: 5 }, { id: f.deal.id, name: `Deal ${unique()}` }] }), events: batchEvents('deal.updated') };
  },
  'POST /tasks/batch': async () => ({ send: () => api.post('/tasks/batch', { inputs: [{ title: 'B1' }, { title: 'B2', owner_ids: [f.user.id] }] }), events: batchEvents('task.created') }),
  'PUT /tasks/batch': async () => {
    const id = await make('/tasks', { title: 'Batch' });
    return { send: () => api.put('/tasks/batch', { inputs: [{ id, is_done: true }, { id: f.task.id, title: `T ${unique()}` }] }), events: batchEvents('task.updated') };
  },
} satisfies Record<string, () => Promise<Write>>);

/** Mutations that no REST route runs, written through GraphQL. */
const GRAPHQL_WRITES: Record<string, () => Promise<Write>> = {
  deletePaymentProviderAccount: async () => {
    const id = await make('/payment-provider-accounts', { name: 'Doomed', provider: 'test' });
    return { send: () => api.graphql('mutation ($id: ID!) { deletePaymentProviderAccount(id: $id) }', { id }), events: () => [['payment_provider_account.deleted', id]] };
  },
  deletePaymentLink: async () => {
    const id = await make('/payment-links', { name: 'Doomed', amount: 5, currency: 'USD', payment_provider_account_id: f.account.id });
    return { send: () => api.graphql('mutation ($id: ID!) { deletePaymentLink(id: $id) }', { id }), events: () => [['payment_link.deleted', id]] };
  },
  // The payer's checkout (run by the public API, here through GraphQL with a key): the new contact and the transaction.
  createCheckout: async () => {
    const account = await make('/payment-provider-accounts', { name: 'Test', provider: 'test' });
    const link = (await created(api.post('/payment-links', { name: 'Pay me', amount: 20, currency: 'USD', payment_provider_account_id: account }))) as { id: string; public_token: string };
    expect((await api.post(`/payment-links/${link.id}/activate`)).status).toBe(200);
    const email = `payer-${unique()}@example.com`;
    let ids: string[] = [];
    return {
      send: async () => {
        const reply = await api.graphql('mutation ($t: String!, $input: CreateCheckoutInput!) { createCheckout(publicToken: $t, input: $input) { checkoutId } }', {
          t: link.public_token,
          input: { payer: { name: 'Pat Payer', email } },
        });
        ids = [(await api.get(`/contacts?email=${email}`)).body.data[0].id, (await api.get(`/payment-transactions?search=${reply.body.data.createCheckout.checkoutId}`)).body.data[0].id];
        return reply;
      },
      events: () => [
        ['contact.created', ids[0]!],
        ['payment_transaction.created', ids[1]!],
      ],
    };
  },
  // A provider's webhook (REST checks its signature; GraphQL with a key runs the same ingestion).
  recordProviderEvent: async () => {
    const reference = `pi_${unique()}`;
    const id = await make('/payment-transactions', { payment_link_id: f.link.id, provider_reference: reference, amount: 3, currency: 'USD' });
    return {
      send: () =>
        api.graphql('mutation ($a: ID!, $input: ProviderEventInput!) { recordProviderEvent(accountId: $a, input: $input) { created } }', {
          a: f.link.payment_provider_account_id ?? f.account.id,
          input: { type: 'payment.paid', status: 'paid', providerReference: `evt_${unique()}`, transactionProviderReference: reference, occurredAt: new Date().toISOString() },
        }),
      events: () => [['payment_transaction.updated', id]],
    };
  },
};

/** The root field a route's document runs. */
const rootFieldOf = (document: string) => /\{\s*(\w+)/.exec(document.slice(document.indexOf('{')))![1]!;
const writeRoutes = restRoutes.filter((r) => r.method !== 'GET');

/** Every event newer than `after` (an event id, or '' for all), oldest first. */
async function eventsAfter(after: string): Promise<any[]> {
  const reply = await api.get('/events?per_page=100');
  expect(reply.status).toBe(200);
  return reply.body.data.filter((e: { id: string }) => e.id > after).reverse();
}
const newestEventId = async () => (await api.get('/events?per_page=1')).body.data[0]?.id ?? '';

/** Each record's REST GET (or null when it is not there). */
async function restObjects(expected: Expected[]): Promise<Map<string, unknown>> {
  const objects = new Map<string, unknown>();
  for (const [type, id] of expected) {
    const reply = await api.get(`/${PATHS[type.split('.')[0]!]}/${id}`);
    objects.set(id, reply.status === 200 ? reply.body : null);
  }
  return objects;
}

/** The top-level fields whose values differ, with their old values: what `previous_attributes` must say. */
function changed(before: Record<string, unknown>, after: Record<string, unknown>) {
  return Object.fromEntries(Object.keys(after).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).map((k) => [k, before[k] ?? null]));
}

async function checkWrite(label: string, write: Write) {
  const start = await newestEventId();
  // The records as they are before: `previous_attributes` and a deletion's last state come from them.
  const reply = await write.send();
  const expected = write.events(reply);
  const recorded = await eventsAfter(start);
  expect([label, reply.status < 300 && !reply.body?.errors ? 'ok' : reply.body]).toEqual([label, 'ok']);
  expect([label, recorded.map((e) => [e.type, e.record_id])]).toEqual([label, expected]);
  const after = await restObjects(expected);
  // The moments API.md section 11 names (refund.succeeded, payment.refunded) are updates of their record.
  const last = new Map(recorded.map((e) => [e.record_id, e]));
  for (const event of recorded) {
    const named = event.type.split('.')[1]!;
    // A restore is a creation, a purge a deletion (API.md section 12).
    const kind = named === 'created' || named === 'restored' ? 'created' : named === 'deleted' || named === 'purged' ? 'deleted' : 'updated';
    const resource = event.resource;
    if (named !== kind && !['restored', 'purged', 'merged'].includes(named)) expect(['refund', 'payment_transaction']).toContain(resource);
    expect(event).toEqual({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      type: event.type,
      resource,
      record_id: event.record_id,
      actor: { type: 'api_key', id: keyId, name: 'test' },
      request_id: reply.headers.get('x-request-id'),
      // A merge's event also names the records folded into its record (API.md section 12).
      data: { object: expect.any(Object), previous_attributes: kind === 'updated' ? expect.any(Object) : null, ...(named === 'merged' ? { source_ids: expect.any(Array) } : {}) },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    if (kind === 'deleted') {
      expect([label, after.get(event.record_id)]).toEqual([label, null]);
      expect(event.data.object.id).toBe(event.record_id);
    } else if (last.get(event.record_id) === event) {
      // A record written twice (a refund created, then answered) ends as its last event shows it.
      expect([label, event.data.object]).toEqual([label, after.get(event.record_id)]);
    }
  }
  return recorded;
}

describe('every write records one event per record it wrote', () => {
  it('has a case for every write route and every mutation, and none for what is gone', () => {
    expect(Object.keys(REST_WRITES).sort()).toEqual(writeRoutes.map((r) => `${r.method} ${r.path}`).sort());
    const viaRest = new Set(writeRoutes.map((r) => rootFieldOf(r.document)));
    const mutations = Object.keys(schema.getMutationType()!.getFields());
    expect(mutations.filter((m) => !viaRest.has(m)).sort()).toEqual(Object.keys(GRAPHQL_WRITES).sort());
  });

  it.each(Object.keys(REST_WRITES))('%s', async (label) => {
    await checkWrite(label, await REST_WRITES[label]!());
  });

  it.each(Object.keys(GRAPHQL_WRITES))('GraphQL %s', async (label) => {
    await checkWrite(label, await GRAPHQL_WRITES[label]!());
  });

  it('an update says which fields changed, with their old values; a deletion carries the last state', async () => {
    const contact = await created(api.post('/contacts', { first_name: 'Grace', email: `grace-${unique()}@example.com`, properties: {} }));
    const start = await newestEventId();
    const updated = await api.put(`/contacts/${contact.id}`, { last_name: 'Hopper', notes: 'Navy' });
    expect((await api.delete(`/contacts/${contact.id}`)).status).toBe(204);
    const [update, deletion] = await eventsAfter(start);
    expect(update.data).toEqual({ object: updated.body, previous_attributes: changed(contact, updated.body) });
    expect(update.data.previous_attributes).toEqual({ last_name: null, notes: null, updated_at: contact.updated_at });
    expect(deletion.type).toBe('contact.deleted');
    expect(deletion.data).toEqual({ object: updated.body, previous_attributes: null });
  });

  it('a PUT that changes nothing still moves updated_at and is an updated event', async () => {
    const company = await created(api.post('/companies', { name: 'Same' }));
    const start = await newestEventId();
    const same = await api.put(`/companies/${company.id}`, { name: 'Same' });
    const [event] = await eventsAfter(start);
    expect(event.type).toBe('company.updated');
    expect(event.data.previous_attributes).toEqual({ updated_at: company.updated_at });
    expect(same.body.updated_at).not.toBe(company.updated_at);
  });

  it('a GraphQL write names its key and request id, like a REST one', async () => {
    const start = await newestEventId();
    const reply = await api.request('POST', '/graphql', {
      body: { query: 'mutation { createCompany(input: { name: "Via GraphQL" }) { id } }' },
      headers: { 'X-Request-Id': 'req-graphql-1' },
    });
    const [event] = await eventsAfter(start);
    expect([event.type, event.record_id, event.request_id, event.actor]).toEqual(['company.created', reply.body.data.createCompany.id, 'req-graphql-1', { type: 'api_key', id: keyId, name: 'test' }]);
  });
});

describe('a refused write records nothing', () => {
  const unknownId = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
  it.each(writeRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (label, route) => {
    const start = await newestEventId();
    // An unknown id is a 404; a route without one gets a body that breaks its rules (422).
    const path = route.path.replace('{type}', 'contacts').replace('{id}', unknownId);
    const body = route.path.includes('{id}') ? (route.method === 'DELETE' ? undefined : {}) : route.path === '/workspace' ? { default_currency: 'usd-x' } : { name: '', email: 'no', url: 'ftp://x' };
    const reply = await api.request(route.method, path, body === undefined ? {} : { body });
    expect([label, reply.status]).toEqual([label, route.path.includes('{id}') ? 404 : 422]);
    expect(await eventsAfter(start)).toEqual([]);
  });

  it('a GraphQL mutation refused halfway (a unique value taken) records nothing', async () => {
    const email = `taken-${unique()}@example.com`;
    await created(api.post('/users', { name: 'First', email }));
    const start = await newestEventId();
    const reply = await api.graphql(`mutation { createUser(input: { name: "Second", email: "${email}" }) { id } }`);
    expect(reply.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(await eventsAfter(start)).toEqual([]);
  });

  it('an Idempotency-Key replay records nothing new', async () => {
    const headers = { 'Idempotency-Key': `key-${unique()}` };
    const body = { name: 'Once' };
    const start = await newestEventId();
    const first = await api.request('POST', '/companies', { body, headers });
    const again = await api.request('POST', '/companies', { body, headers });
    expect([first.status, again.status, again.body]).toEqual([201, 201, first.body]);
    expect((await eventsAfter(start)).map((e) => [e.type, e.record_id])).toEqual([['company.created', first.body.id]]);
  });
});

describe('statements: recording adds the reads of the REST objects and one INSERT', () => {
  it('POST, PUT and DELETE of a contact', async () => {
    const other = await newClient(app);
    let id = '';
    const post = await countStatements(app, async () => (id = (await other.post('/contacts', { first_name: 'S', email: `s-${unique()}@example.com` })).body.id));
    const put = await countStatements(app, () => other.put(`/contacts/${id}`, { first_name: 'T' }));
    const del = await countStatements(app, () => other.delete(`/contacts/${id}`));
    const inserts = await countStatements(app, () => other.post('/contacts', { first_name: 'U', email: `u-${unique()}@example.com` }));
    // Each: the workspace's active webhook endpoints read once, for the event's deliveries (none here, so no INSERT of them).
    // POST: the INSERT, the property definitions for the object (which the answer reuses), the event's INSERT, COMMIT.
    // PUT: the existence check and the definitions; the lock, the object before, the stored row, the UPDATE, the event's INSERT, COMMIT.
    // The object after a POST or PUT is the row its INSERT or UPDATE returned: not read again.
    // DELETE: the row and its links for the trash (the row, its companies, deals, notes and payments: 5), the
    // object before and the definitions, the DELETE, the trash's INSERT, the event's INSERT, COMMIT.
    // The event's INSERT also writes (or removes) the contact's search entry: no statement of its own.
    // (On PostgreSQL, Prisma reads the row with its four links in one statement: 4 fewer.)
    expect({ post, put, del }).toEqual({ post: 5, put: 9, del: app.provider === 'postgresql' ? 8 : 12 });
    expect(inserts).toBe(post);
  });

  it('with endpoints subscribed, the events and their deliveries are still one INSERT', async () => {
    const other = await newClient(app);
    // No worker runs in this app: the deliveries stay pending, as queued.
    const a = await created(other.post('/webhook-endpoints', { url: 'https://93.184.216.34/a', events: ['contact.*'] }));
    const b = await created(other.post('/webhook-endpoints', { url: 'https://93.184.216.34/b', events: ['contact.created', 'deal.*'] }));
    await created(other.post('/webhook-endpoints', { url: 'https://93.184.216.34/c', events: ['deal.*'] }));
    let id = '';
    const post = await countStatements(app, async () => (id = (await created(other.post('/contacts', { first_name: 'S', email: `s-${unique()}@example.com` }))).id));
    const put = await countStatements(app, () => other.put(`/contacts/${id}`, { first_name: 'T' }));
    expect({ post, put }).toEqual({ post: 5, put: 9 });
    const [created_, updated] = ((await other.get(`/events?record_id=${id}`)).body.data as any[]).reverse();
    const queued = async (endpoint: string) =>
      ((await other.get(`/webhook-endpoints/${endpoint}/deliveries`)).body.data as any[]).map((d) => [d.event_id, d.event_type, d.status, d.attempts, d.next_attempt_at === d.created_at]);
    expect(await queued(a.id)).toEqual([
      [updated.id, 'contact.updated', 'pending', 0, true],
      [created_.id, 'contact.created', 'pending', 0, true],
    ]);
    expect(await queued(b.id)).toEqual([[created_.id, 'contact.created', 'pending', 0, true]]);
    // A batch: its events and every delivery of each, in one statement too: as many statements as where nobody subscribes.
    const batchOf = (client: Client) => () => client.post('/contacts/batch', { inputs: [1, 2, 3].map((n) => ({ first_name: `B${n}`, email: `b${n}-${unique()}@example.com` })) });
    expect(await countStatements(app, batchOf(other))).toBe(await countStatements(app, batchOf(await newClient(app))));
    expect((await other.get(`/webhook-endpoints/${a.id}/deliveries?per_page=1`)).body.total).toBe(5);
    expect((await other.get(`/webhook-endpoints/${b.id}/deliveries?per_page=1`)).body.total).toBe(4);
  });
});

describe('the log', () => {
  it('lists newest first, filters by type, resource, record and time, and reads one event', async () => {
    const other = await newClient(app);
    const a = await created(other.post('/companies', { name: 'A' }));
    const b = await created(other.post('/contacts', { first_name: 'B', email: `b-${unique()}@example.com` }));
    expect((await other.put(`/companies/${a.id}`, { name: 'A2' })).status).toBe(200);
    const all = (await other.get('/events')).body;
    expect([all.total, all.current_page, all.per_page, all.last_page]).toEqual([3, 1, 15, 1]);
    expect(all.data.map((e: any) => [e.type, e.record_id])).toEqual([
      ['company.updated', a.id],
      ['contact.created', b.id],
      ['company.created', a.id],
    ]);
    const types = async (query: string) => ((await other.get(`/events?${query}`)).body.data as any[]).map((e) => e.type);
    expect(await types('type=company.created')).toEqual(['company.created']);
    expect(await types('type=company.*')).toEqual(['company.updated', 'company.created']);
    expect(await types(`record_id=${b.id}`)).toEqual(['contact.created']);
    expect(await types('type=nothing.like.this')).toEqual([]);
    expect(await types(`created_since=${encodeURIComponent(all.data[0].created_at)}`)).toEqual(['company.updated']);
    expect(await types('created_since=2999-01-01T00:00:00.000Z')).toEqual([]);
    expect((await other.get('/events?per_page=1&page=2')).body.data.map((e: any) => e.type)).toEqual(['contact.created']);
    const one = await other.get(`/events/${all.data[1].id}`);
    expect([one.status, one.body]).toEqual([200, all.data[1]]);
    expect(await other.get('/events/01ARZ3NDEKTSV4RRFFQ69G5FAV')).toMatchObject({ status: 404, body: { message: 'Event not found.' } });
    expect((await other.get('/events?created_since=yesterday')).status).toBe(422);
    expect((await other.get('/events?per_page=101')).status).toBe(422);
    // Another workspace's events are unknown ids and never listed.
    expect((await api.get(`/events/${all.data[1].id}`)).status).toBe(404);
    expect(((await api.get(`/events?record_id=${a.id}`)).body.data as any[]).length).toBe(0);
  });

  it('GraphQL: events, event and every record type\'s history, newest first', async () => {
    const other = await newClient(app);
    const contact = await created(other.post('/contacts', { first_name: 'H', email: `h-${unique()}@example.com` }));
    expect((await other.put(`/contacts/${contact.id}`, { first_name: 'H2' })).status).toBe(200);
    const reply = await other.graphql(
      `query ($id: ID!) {
        contact(id: $id) { history(perPage: 1) { total data { type previousAttributes: data } } all: history { data { type recordId actor requestId } } }
        events(filter: { type: "contact.*" }) { total data { id type } }
      }`,
      { id: contact.id },
    );
    expect(reply.body.errors).toBeUndefined();
    const { contact: c, events } = reply.body.data;
    expect(c.history.total).toBe(2);
    expect(c.history.data[0].type).toBe('contact.updated');
    expect(c.history.data[0].previousAttributes.previous_attributes.first_name).toBe('H');
    expect(c.all.data.map((e: any) => e.type)).toEqual(['contact.updated', 'contact.created']);
    expect(c.all.data[0].actor).toEqual({ type: 'api_key', id: expect.any(String), name: 'test' });
    expect(events.data.map((e: any) => e.type)).toEqual(['contact.updated', 'contact.created']);
    const one = await other.graphql('query ($id: ID!) { event(id: $id) { type } }', { id: events.data[1].id });
    expect(one.body.data.event.type).toBe('contact.created');
    const unknown = await other.graphql('query { event(id: "01ARZ3NDEKTSV4RRFFQ69G5FAV") { id } }');
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const types = schema.getTypeMap();
    for (const name of ['User', 'PropertyDefinition', 'Product', 'Contact', 'Company', 'Pipeline', 'Deal', 'Task', 'TicketStatus', 'Ticket', 'PaymentProviderAccount', 'PaymentLink', 'PaymentCoupon', 'PaymentTransaction']) {
      expect([name, 'history' in (types[name] as any).getFields()]).toEqual([name, true]);
    }
  });
});

describe('retention', () => {
  it('purges events older than the cutoff in bounded batches, and stops between batches when asked', async () => {
    const other = await newClient(app);
    const kept = await created(other.post('/companies', { name: 'Recent' }));
    const old = new Date(Date.now() - 40 * 86_400_000);
    const rows = Array.from({ length: 1_203 }, (_, i) => ({
      id: `00${String(i).padStart(24, '0')}`,
      workspaceId: other.workspaceId,
      type: 'company.updated',
      resource: 'company',
      recordId: kept.id,
      actor: '{"type":"cli"}',
      requestId: null,
      data: '{"object":{},"previous_attributes":{}}',
      createdAt: old,
    }));
    await app.database.prisma.event.createMany({ data: rows });
    const cutoff = new Date(Date.now() - 30 * 86_400_000);
    const deletes: string[] = [];
    app.database.onStatement((sql) => {
      if (/^DELETE/.test(sql) && /Event/.test(sql)) deletes.push(sql);
    });
    let stopAfterFirst = 0;
    const firstRound = await purgeEvents(app.database.prisma, cutoff, () => stopAfterFirst++ > 0, 500);
    const rest = await purgeEvents(app.database.prisma, cutoff, () => false, 500);
    app.database.onStatement(undefined);
    expect([firstRound, rest, deletes.length]).toEqual([500, 703, 3]);
    const left = (await other.get('/events?per_page=100')).body;
    expect([left.total, left.data[0].type]).toEqual([1, 'company.created']);
  });

  it('purges finished webhook deliveries made before the cutoff (by their ids), and keeps pending ones whatever their age', async () => {
    const other = await newClient(app);
    const endpoint = await created(other.post('/webhook-endpoints', { url: 'https://93.184.216.34/purge', events: ['deal.*'], is_active: false }));
    const cutoff = new Date(Date.now() - 30 * 86_400_000);
    const madeAt = (days: number, n: number) => `${firstIdAt(new Date(Date.now() - days * 86_400_000)).slice(0, 10)}${String(n).padStart(16, '0')}`;
    const delivery = (id: string, status: string) => ({
      id,
      workspaceId: other.workspaceId,
      endpointId: endpoint.id,
      eventId: id,
      eventType: 'deal.created',
      payload: '{}',
      status,
      nextAttemptAt: status === 'pending' ? new Date() : null,
      createdAt: new Date(),
    });
    const old = Array.from({ length: 7 }, (_, i) => delivery(madeAt(31, i), ['succeeded', 'failed', 'pending'][i % 3]!));
    const recent = [delivery(madeAt(29, 0), 'succeeded'), delivery(madeAt(0, 1), 'failed')];
    await app.database.prisma.webhookDelivery.createMany({ data: [...old, ...recent] });
    expect(await purgeEvents(app.database.prisma, cutoff, () => false, 2)).toBe(0); // no event of this workspace is old
    const left = await app.database.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id }, orderBy: { id: 'asc' }, select: { id: true, status: true } });
    expect(left).toEqual([...old.filter((d) => d.status === 'pending'), ...recent].map(({ id, status }) => ({ id, status })));
  });

  it('the service runs the purge in the background with EVENT_RETENTION_DAYS', async () => {
    const other = await newClient(app);
    await app.database.prisma.event.create({
      data: { id: '00ZZZZZZZZZZZZZZZZZZZZZZZZ', workspaceId: other.workspaceId, type: 'user.created', resource: 'user', recordId: 'x', actor: '{"type":"cli"}', data: '{}', createdAt: new Date(Date.now() - 3 * 86_400_000) },
    });
    const background = startBackgroundWork(app.service, { EVENT_RETENTION_DAYS: 2 });
    await expect.poll(() => app.database.prisma.event.count({ where: { workspaceId: other.workspaceId } }), { timeout: 10_000, interval: 20 }).toBe(0);
    await background.stop();
  });
});
