import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredTrash } from '../src/modules/trash/purge.js';
import { DEFAULT_SETTINGS } from '../src/graphql/context.js';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';
import { represent } from './support/schema.js';
import { listQueryFields, listRoutes, newApi, seedWorkspace } from './support/fuzz.js';
import { getNamedType, isLeafType, isObjectType, type GraphQLObjectType } from 'graphql';
import { snapshotWorkspace } from './support/snapshot.js';

// API.md section 12's trash: DELETE moves a record there, gone from every read; restore brings it back with its links.
let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

async function crm(api: Client) {
  const user = (await api.post('/users', { name: 'Ann', email: 'ann@example.com' })).body;
  const company = (await api.post('/companies', { name: 'Acme' })).body;
  const contact = (await api.post('/contacts', { first_name: 'Ada', email: 'ada@example.com', company_ids: [company.id], properties: {} })).body;
  const pipeline = (await api.post('/pipelines', { name: 'Sales', stages: [{ name: 'Lead' }] })).body;
  const product = (await api.post('/products', { name: 'Seat', sku: 'SEAT-1', type: 'product', price: 10, currency: 'USD', unit: 'seat' })).body;
  const deal = (await api.post('/deals', { name: 'Order', deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id, contact_ids: [contact.id], product_ids: [product.id] })).body;
  const task = (await api.post('/tasks', { title: 'Call', owner_ids: [user.id] })).body;
  const status = (await api.post('/ticket-statuses', { name: 'Open' })).body;
  const ticket = (await api.post('/tickets', { title: 'Broken', ticket_status_id: status.id })).body;
  const note = (await api.post('/notes', { body: 'Met Ada', contact_ids: [contact.id], deal_ids: [deal.id], author_id: user.id })).body;
  return { user, company, contact, pipeline, product, deal, task, status, ticket, note };
}

describe('the trash', () => {
  it('takes each trashable record out of every read on DELETE, lists it, and restores it as it was', async () => {
    const api = await newClient(app);
    const records = await crm(api);
    const cases = [
      ['contacts', records.contact, 'Ada'],
      ['companies', records.company, 'Acme'],
      ['deals', records.deal, 'Order'],
      ['products', records.product, 'Seat'],
      ['tasks', records.task, 'Call'],
      ['tickets', records.ticket, 'Broken'],
      ['notes', records.note, 'Met Ada'],
    ] as const;
    for (const [type, record, title] of cases) {
      const before = (await api.get(`/${type}/${record.id}`)).body;
      expect((await api.delete(`/${type}/${record.id}`)).status).toBe(204);
      expect((await api.get(`/${type}/${record.id}`)).status).toBe(404);
      expect((await api.delete(`/${type}/${record.id}`)).status).toBe(404);
      expect((await api.get(`/${type}`)).body.data.map((r: { id: string }) => r.id)).not.toContain(record.id);
      const listed = (await api.get(`/trash?type=${type}`)).body;
      expect(listed.data).toEqual([{ type, id: record.id, title, deleted_at: ISO, purge_at: ISO, merged_into: null }]);
      expect(Date.parse(listed.data[0].purge_at) - Date.parse(listed.data[0].deleted_at)).toBe(30 * 86_400_000);
      expect(listed.total).toBe(1);
      const restored = await api.post(`/${type}/${record.id}/restore`);
      expect([type, restored.status]).toEqual([type, 200]);
      expect(restored.body).toEqual({ ...before, updated_at: restored.body.updated_at });
      expect((await api.get(`/${type}/${record.id}`)).body).toEqual(restored.body);
      expect((await api.post(`/${type}/${record.id}/restore`)).status).toBe(404);
    }
    expect((await api.get('/trash')).body.total).toBe(0);
  });

  it('brings relations back to records still there, and the others when those come back', async () => {
    const api = await newClient(app);
    const { contact, company, deal, note } = await crm(api);
    expect((await api.delete(`/contacts/${contact.id}`)).status).toBe(204);
    // Gone from its relations: the company's contacts, the deal's, the note's targets, search.
    const companyContacts = await api.graphql('query($id: ID!) { company(id: $id) { contacts { id } } deal(id: $id2) { contacts { id } } }'.replace('$id2', `"${deal.id}"`), { id: company.id });
    expect(companyContacts.body.data).toEqual({ company: { contacts: [] }, deal: { contacts: [] } });
    expect((await api.get(`/notes/${note.id}`)).body.targets.map((t: { type: string }) => t.type)).toEqual(['deals']);
    expect((await api.get('/search?q=ada')).body.data.map((h: { type: string }) => h.type)).toEqual(['notes']);
    expect((await api.get('/contacts?per_page=1')).body.total).toBe(0);
    // The company goes too; the contact comes back without it, and gets it back when it returns.
    expect((await api.delete(`/companies/${company.id}`)).status).toBe(204);
    const back = await api.post(`/contacts/${contact.id}/restore`);
    expect(back.status).toBe(200);
    const links = async () => (await api.graphql('query($id: ID!) { contact(id: $id) { companyIds deals { id } } }', { id: contact.id })).body.data.contact;
    expect(await links()).toEqual({ companyIds: [], deals: [{ id: deal.id }] });
    expect((await api.get(`/notes/${note.id}`)).body.targets.map((t: { type: string }) => t.type)).toEqual(['contacts', 'deals']);
    expect((await api.get('/search?q=ada')).body.data.map((h: { type: string }) => h.type).sort()).toEqual(['contacts', 'notes']);
    expect((await api.post(`/companies/${company.id}/restore`)).status).toBe(200);
    expect(await links()).toEqual({ companyIds: [company.id], deals: [{ id: deal.id }] });
  });

  it('frees unique values, and refuses a restore that would take one back (409), a record it names gone, and what is not in the trash (404)', async () => {
    const api = await newClient(app);
    const { contact, product, ticket, status } = await crm(api);
    expect((await api.delete(`/contacts/${contact.id}`)).status).toBe(204);
    const again = await api.post('/contacts', { first_name: 'Ada II', email: 'ada@example.com' });
    expect(again.status).toBe(201);
    expect(await api.post(`/contacts/${contact.id}/restore`)).toMatchObject({ status: 409, body: { message: 'This record cannot be restored: its email is taken.' } });
    expect((await api.delete(`/products/${product.id}`)).status).toBe(204);
    expect((await api.post('/products', { name: 'Seat 2', sku: 'SEAT-1', type: 'product', price: 1, currency: 'USD', unit: 'seat' })).status).toBe(201);
    expect(await api.post(`/products/${product.id}/restore`)).toMatchObject({ status: 409, body: { message: 'This record cannot be restored: its sku is taken.' } });
    expect((await api.delete(`/tickets/${ticket.id}`)).status).toBe(204);
    expect((await api.delete(`/ticket-statuses/${status.id}`)).status).toBe(204);
    expect(await api.post(`/tickets/${ticket.id}/restore`)).toMatchObject({ status: 409, body: { message: 'This record cannot be restored: its status is gone.' } });
    expect(await api.post(`/contacts/${again.body.id}/restore`)).toMatchObject({ status: 404, body: { message: 'Contact not found.' } });
    expect((await api.post(`/deals/${contact.id}/restore`)).status).toBe(404);
    // Nothing changed by the refusals: still in the trash.
    expect((await api.get('/trash')).body.data.map((t: { id: string }) => t.id).sort()).toEqual([contact.id, product.id, ticket.id].sort());
  });

  it('purges at once (DELETE /trash/{type}/{id}) or after TRASH_RETENTION_DAYS, with restored and purged events', async () => {
    const api = await newClient(app);
    const { task, note } = await crm(api);
    await api.delete(`/tasks/${task.id}`);
    await api.post(`/tasks/${task.id}/restore`);
    await api.delete(`/tasks/${task.id}`);
    expect((await api.delete(`/trash/tasks/${task.id}`)).status).toBe(204);
    expect((await api.delete(`/trash/tasks/${task.id}`)).status).toBe(404);
    expect((await api.post(`/tasks/${task.id}/restore`)).status).toBe(404);
    expect((await api.delete(`/trash/boats/${task.id}`)).body.errors).toEqual({ type: ['The selected type is invalid.'] });
    const types = (await api.get(`/events?record_id=${task.id}`)).body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(['task.purged', 'task.deleted', 'task.restored', 'task.deleted', 'task.created']);
    const purged = (await api.get(`/events?type=task.purged`)).body.data[0];
    expect(purged.data.object).toMatchObject({ id: task.id, title: 'Call' });

    // The background purge: only what is past its retention.
    await api.delete(`/notes/${note.id}`);
    const settings = { ...DEFAULT_SETTINGS, trashRetentionDays: 30 };
    expect(await purgeExpiredTrash(app.database.prisma, represent, settings, { now: new Date() })).toBe(0);
    expect(await purgeExpiredTrash(app.database.prisma, represent, settings, { now: new Date(Date.now() + 31 * 86_400_000) })).toBeGreaterThanOrEqual(1);
    expect((await api.get('/trash')).body.total).toBe(0);
    expect((await api.get(`/events?type=note.purged`)).body.data.map((e: { record_id: string }) => e.record_id)).toEqual([note.id]);
  });

  it('shows each key only the types it can read, and purges only with the type\'s write scope', async () => {
    const api = await newClient(app);
    const { task, note } = await crm(api);
    await api.delete(`/tasks/${task.id}`);
    await api.delete(`/notes/${note.id}`);
    const { createKey } = await import('../src/auth/api-keys.js');
    const workspace = (await api.get('/workspace')).body.name;
    const key = (await createKey(app.database.prisma, workspace, 'notes', { scopes: ['notes:write'] })).key;
    const as = (method: string, path: string) => fetch(`${app.url}/api/v1${path}`, { method, headers: { 'X-Api-Key': key } });
    expect((await (await as('GET', '/trash')).json()).data.map((t: { type: string }) => t.type)).toEqual(['notes']);
    expect((await as('GET', '/trash?type=tasks')).status).toBe(403);
    expect((await as('DELETE', `/trash/tasks/${task.id}`)).status).toBe(403);
    expect((await as('POST', `/tasks/${task.id}/restore`)).status).toBe(403);
    expect((await as('DELETE', `/trash/notes/${note.id}`)).status).toBe(204);
  });

  it('keeps a trashed record out of every list and every relation of both faces, and out of search, reports and exports', async () => {
    const api = await newApi(app);
    const seeded = await seedWorkspace(api, 'walk');
    // One more of each trashable resource, linked to the seeded ones, then deleted.
    const { ids } = seeded;
    const made = {
      contacts: await api.rest('POST', '/contacts', { first_name: 'Zed', email: 'zed@example.com', company_ids: [ids.companies] }),
      companies: await api.rest('POST', '/companies', { name: 'Zed Corp', contact_ids: [ids.contacts] }),
      deals: await api.rest('POST', '/deals', { name: 'Zed deal', deal_stage_external_id: seeded.records.pipelines.stages[0].external_id, user_id: ids.users, contact_ids: [ids.contacts], product_ids: [ids.products] }),
      products: await api.rest('POST', '/products', { name: 'Zed product', sku: 'ZED', type: 'product', price: 5, currency: 'USD', unit: 'u' }),
      tasks: await api.rest('POST', '/tasks', { title: 'Zed task', owner_ids: [ids.users] }),
      tickets: await api.rest('POST', '/tickets', { title: 'Zed ticket', ticket_status_id: ids['ticket-statuses'] }),
      notes: await api.rest('POST', '/notes', { body: 'Zed note', contact_ids: [ids.contacts], deal_ids: [ids.deals] }),
    };
    await api.rest('PUT', `/deals/${ids.deals}`, { product_ids: [ids.products, made.products.id] });
    for (const [type, record] of Object.entries(made)) await api.rest('DELETE', `/${type}/${record.id}`);
    const gone = Object.values(made).map((r) => r.id as string);
    const leaks = (text: string) => gone.filter((id) => text.includes(id));

    // The event log tells of the deletions, by design; the stream is the log's.
    for (const route of listRoutes().filter((r) => !['/trash', '/events', '/events/stream'].includes(r.path))) {
      const own: Record<string, string> = { '/reports/pipeline': `?pipeline_id=${ids.pipelines}`, '/reports/payments': '', '/search': '?q=zed' };
      const query = own[route.path] ?? (route.csv ? '' : '?per_page=100');
      const reply = await api.request('GET', `/api/v1${route.path}${query}`);
      expect([route.path, reply.status, leaks(reply.text)]).toEqual([route.path, 200, []]);
    }
    for (const field of listQueryFields().filter((f) => f.name !== 'trash' && f.name !== 'events')) {
      const item = getNamedType((getNamedType(field.type) as GraphQLObjectType).getFields().data!.type) as GraphQLObjectType;
      const relations = Object.values(item.getFields())
        .filter((f) => isObjectType(getNamedType(f.type)) && !f.args.some((a) => a.type.toString().endsWith('!')))
        .map((f) => {
          const related = getNamedType(f.type) as GraphQLObjectType;
          const inner = related.getFields().data ? (getNamedType(related.getFields().data!.type) as GraphQLObjectType) : related;
          const leaves = Object.values(inner.getFields()).filter((x) => isLeafType(getNamedType(x.type)) && !x.args.length).map((x) => x.name).join(' ');
          return related.getFields().data ? `${f.name} { data { ${leaves} } }` : `${f.name} { ${leaves} }`;
        });
      const leaves = Object.values(item.getFields()).filter((x) => isLeafType(getNamedType(x.type)) && !x.args.some((a) => a.type.toString().endsWith('!'))).map((x) => x.name);
      const reply = await api.graphql(`{ ${field.name}(perPage: 100) { total data { ${leaves.join(' ')} ${relations.join(' ')} } } }`);
      expect([field.name, reply.body.errors, leaks(JSON.stringify(reply.body))]).toEqual([field.name, undefined, []]);
    }
    // Search, each search type; the seeded records' own timelines; the deal report.
    expect(leaks((await api.request('GET', '/api/v1/search?q=zed')).text)).toEqual([]);
    for (const path of [`/contacts/${ids.contacts}/timeline?kinds=note`, `/deals/${ids.deals}/timeline?kinds=note`, `/companies/${ids.companies}/timeline?kinds=note`]) {
      expect(leaks((await api.request('GET', `/api/v1${path}`)).text)).toEqual([]);
    }
    const report = (await api.request('GET', `/api/v1/reports/pipeline?pipeline_id=${ids.pipelines}`)).body;
    expect(report.data.map((row: { count: number }) => row.count).reduce((a: number, b: number) => a + b, 0)).toBe(1);
    // And all of them in the trash, each once.
    expect((await api.request('GET', '/api/v1/trash?per_page=100')).body.data.map((t: { id: string }) => t.id).sort()).toEqual([...gone, ids.trash].sort());
  });

  it('answers 404 to another workspace that restores or purges a record of this trash, and changes nothing', async () => {
    const api = await newClient(app);
    const other = await newClient(app);
    const { note } = await crm(api);
    await api.delete(`/notes/${note.id}`);
    const before = await snapshotWorkspace(app.database, api.workspaceId);
    expect(await other.post(`/notes/${note.id}/restore`)).toMatchObject({ status: 404, body: { message: 'Note not found.' } });
    expect(await other.delete(`/trash/notes/${note.id}`)).toMatchObject({ status: 404, body: { message: 'Note not found.' } });
    const graphql = await other.graphql(`mutation { purgeTrashed(type: "notes", id: "${note.id}") }`);
    expect(graphql.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['NOT_FOUND']);
    expect((await other.get('/trash')).body.total).toBe(0);
    expect(await snapshotWorkspace(app.database, api.workspaceId)).toEqual(before);
  });
});
