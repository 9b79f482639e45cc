import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, countStatements, newClient, startApp } from './support/app.js';

const STATUS_FIELDS = ['id', 'name', 'order', 'is_closed', 'created_at', 'updated_at'].sort();
const TICKET_FIELDS = ['id', 'title', 'description', 'ticket_status_id', 'position', 'created_at', 'updated_at'].sort();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

async function status(api: Client, name: string, extra: Record<string, unknown> = {}) {
  const res = await api.post('/ticket-statuses', { name, ...extra });
  expect(res.status).toBe(201);
  return res.body;
}

async function ticket(api: Client, title: string, statusId: string) {
  const res = await api.post('/tickets', { title, ticket_status_id: statusId });
  expect(res.status).toBe(201);
  return res.body;
}

describe('ticket statuses', () => {
  it('creates with defaults and returns exactly the specified fields', async () => {
    const api = await newClient(app);
    const res = await api.post('/ticket-statuses', { name: ' Open ' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(STATUS_FIELDS);
    expect(res.body).toMatchObject({ name: 'Open', order: 0, is_closed: false });
    expect(res.body.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(res.body.created_at).toMatch(ISO);
    const again = await api.get(`/ticket-statuses/${res.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  it('orders new statuses after the last one unless told, and lists oldest first', async () => {
    const api = await newClient(app);
    const open = await status(api, 'Open');
    const done = await status(api, 'Done', { order: 10, is_closed: true });
    const review = await status(api, 'Review');
    const early = await status(api, 'Triage', { order: -5 });
    expect([open.order, done.order, review.order, early.order]).toEqual([0, 10, 11, -5]);
    expect(done.is_closed).toBe(true);
    const list = await api.get('/ticket-statuses');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ current_page: 1, per_page: 15, total: 4, last_page: 1 });
    expect(list.body.data.map((s: any) => s.name)).toEqual(['Open', 'Done', 'Review', 'Triage']);
    expect(Object.keys(list.body.data[0]).sort()).toEqual(STATUS_FIELDS);
    expect((await api.get('/ticket-statuses?page=2&per_page=3')).body).toMatchObject({ current_page: 2, total: 4, last_page: 2, data: [{ name: 'Triage' }] });
    expect((await api.get('/ticket-statuses?is_closed=true')).body.errors).toEqual({ is_closed: ['The is_closed parameter is not supported.'] });
  });

  it('keeps names unique per workspace', async () => {
    const api = await newClient(app);
    const open = await status(api, 'Open');
    const dup = await api.post('/ticket-statuses', { name: 'Open ' });
    expect(dup.status).toBe(422);
    expect(dup.body).toEqual({ message: 'The given data was invalid.', errors: { name: ['The name has already been taken.'] } });
    const closed = await status(api, 'Closed');
    const rename = await api.put(`/ticket-statuses/${closed.id}`, { name: 'Open', is_closed: true });
    expect(rename.status).toBe(422);
    expect(rename.body.errors).toEqual({ name: ['The name has already been taken.'] });
    expect((await api.get(`/ticket-statuses/${closed.id}`)).body).toEqual(closed);
    // Renaming a status to its own name is no conflict; another workspace may use the name.
    expect((await api.put(`/ticket-statuses/${open.id}`, { name: 'Open' })).status).toBe(200);
    expect((await (await newClient(app)).post('/ticket-statuses', { name: 'Open' })).status).toBe(201);
    expect((await api.get('/ticket-statuses')).body.total).toBe(2);
  });

  it('reports every invalid field, wrong JSON types included, and changes nothing', async () => {
    const api = await newClient(app);
    const res = await api.post('/ticket-statuses', { name: '', order: 1.5, is_closed: 'no' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The given data was invalid.',
      errors: {
        name: ['The name field is required.'],
        order: ['The order field must be an integer.'],
        is_closed: ['The is closed field must be true or false.'],
      },
    });
    expect((await api.post('/ticket-statuses', { name: 5, order: 2_000_000 })).body.errors).toEqual({
      name: ['The name field must be a string.'],
      order: ['The order field must not be greater than 1000000.'],
    });
    expect((await api.get('/ticket-statuses')).body.total).toBe(0);
  });

  it('updates partially and refuses null for required fields', async () => {
    const api = await newClient(app);
    const created = await status(api, 'Open');
    const res = await api.put(`/ticket-statuses/${created.id}`, { is_closed: true, id: 'other', created_at: 'x', whatever: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, name: 'Open', order: 0, is_closed: true, created_at: created.created_at });
    const bad = await api.put(`/ticket-statuses/${created.id}`, { name: null, order: null, is_closed: false });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ name: ['The name field is required.'], order: ['The order field is required.'] });
    expect((await api.get(`/ticket-statuses/${created.id}`)).body).toEqual(res.body);
  });

  it('cannot be deleted while tickets use it; an unused one deletes with 204', async () => {
    const api = await newClient(app);
    const used = await status(api, 'Used');
    const unused = await status(api, 'Unused');
    const t = await ticket(api, 'T', used.id);
    const res = await api.delete(`/ticket-statuses/${used.id}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'The given data was invalid.', errors: { id: ['The ticket status is used by tickets and cannot be deleted.'] } });
    expect((await api.get(`/ticket-statuses/${used.id}`)).body).toEqual(used);
    expect((await api.get(`/tickets/${t.id}`)).body).toEqual(t);
    const gone = await api.delete(`/ticket-statuses/${unused.id}`);
    expect(gone.status).toBe(204);
    expect(gone.body).toBeNull();
    expect((await api.get(`/ticket-statuses/${unused.id}`)).status).toBe(404);
    // Once its tickets are gone, the status can go.
    expect((await api.delete(`/tickets/${t.id}`)).status).toBe(204);
    expect((await api.delete(`/ticket-statuses/${used.id}`)).status).toBe(204);
  });

  it('answers 404 for unknown ids and for other workspaces', async () => {
    const api = await newClient(app);
    const other = await newClient(app);
    const created = await status(api, 'Mine');
    for (const res of [
      await other.get(`/ticket-statuses/${created.id}`),
      await other.put(`/ticket-statuses/${created.id}`, { name: 'x' }),
      await other.delete(`/ticket-statuses/${created.id}`),
      await api.get('/ticket-statuses/01ARZ3NDEKTSV4RRFFQ69G5FAV'),
      await api.put('/ticket-statuses/01ARZ3NDEKTSV4RRFFQ69G5FAV', { name: 'x' }),
      await api.delete('/ticket-statuses/01ARZ3NDEKTSV4RRFFQ69G5FAV'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Ticket status not found.' });
    }
    expect((await api.get(`/ticket-statuses/${created.id}`)).body).toEqual(created);
  });
});

describe('tickets', () => {
  it('creates last within its status and returns exactly the specified fields', async () => {
    const api = await newClient(app);
    const open = await status(api, 'Open');
    const res = await api.post('/tickets', { title: ' Printer jam ', ticket_status_id: open.id, position: 40, id: 'mine', whatever: 1 });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(TICKET_FIELDS);
    expect(res.body).toMatchObject({ title: 'Printer jam', description: null, ticket_status_id: open.id, position: 1 });
    expect(res.body.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(res.body.updated_at).toMatch(ISO);
    expect((await api.get(`/tickets/${res.body.id}`)).body).toEqual(res.body);
  });

  it('reports every invalid field, unknown statuses included, and creates nothing', async () => {
    const api = await newClient(app);
    const other = await newClient(app);
    const foreign = await status(other, 'Foreign');
    const res = await api.post('/tickets', { title: '', description: 7, ticket_status_id: foreign.id });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The given data was invalid.',
      errors: {
        title: ['The title field is required.'],
        description: ['The description field must be a string.'],
        ticket_status_id: ['The selected ticket status id is invalid.'],
      },
    });
    expect((await api.post('/tickets', {})).body.errors).toEqual({ title: ['The title field is required.'], ticket_status_id: ['The ticket status id field is required.'] });
    expect((await api.post('/tickets', { title: 'T', ticket_status_id: ['x'] })).body.errors).toEqual({ ticket_status_id: ['The ticket status id field must be a string.'] });
    expect((await api.get('/tickets')).body.total).toBe(0);
    expect((await other.get('/tickets')).body.total).toBe(0);
  });

  it('numbers positions per status, moves last into another status, keeps its place otherwise', async () => {
    const api = await newClient(app);
    const open = await status(api, 'Open');
    const done = await status(api, 'Done');
    const a = await ticket(api, 'A', open.id);
    const b = await ticket(api, 'B', open.id);
    const x = await ticket(api, 'X', done.id);
    expect([a.position, b.position, x.position]).toEqual([1, 2, 1]);

    const same = await api.put(`/tickets/${a.id}`, { ticket_status_id: open.id, title: 'A1' });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ title: 'A1', ticket_status_id: open.id, position: 1 });

    const moved = await api.put(`/tickets/${a.id}`, { ticket_status_id: done.id });
    expect(moved.body).toMatchObject({ title: 'A1', ticket_status_id: done.id, position: 2 });
    expect((await api.get(`/tickets?ticket_status_id=${done.id}`)).body.data.map((t: any) => t.title)).toEqual(['X', 'A1']);
    expect((await api.get(`/tickets?ticket_status_id=${open.id}`)).body.data.map((t: any) => t.title)).toEqual(['B']);
    // Moving back puts it after B, not in its old place.
    expect((await api.put(`/tickets/${a.id}`, { ticket_status_id: open.id })).body.position).toBe(3);
    const c = await ticket(api, 'C', open.id);
    expect(c.position).toBe(4);

    // The whole list reads by position, then id.
    const list = await api.get('/tickets');
    expect(list.body).toMatchObject({ current_page: 1, per_page: 15, total: 4, last_page: 1 });
    expect(list.body.data.map((t: any) => t.title)).toEqual(['X', 'B', 'A1', 'C']);
    expect(Object.keys(list.body.data[0]).sort()).toEqual(TICKET_FIELDS);
    expect((await api.get('/tickets?per_page=2&page=2')).body.data.map((t: any) => t.title)).toEqual(['A1', 'C']);
    expect((await api.get('/tickets?ticket_status_id=nope')).body).toMatchObject({ total: 0, data: [] });
  });

  it('updates partially, clears the description with null, and refuses a bad update whole', async () => {
    const api = await newClient(app);
    const open = await status(api, 'Open');
    const created = (await api.post('/tickets', { title: 'T', description: 'D', ticket_status_id: open.id })).body;
    const res = await api.put(`/tickets/${created.id}`, { ...created, description: null, position: 9, created_at: 'x' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, title: 'T', description: null, ticket_status_id: open.id, position: 1, created_at: created.created_at });
    const bad = await api.put(`/tickets/${created.id}`, { title: null, description: 'new', ticket_status_id: 'missing' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ title: ['The title field is required.'], ticket_status_id: ['The selected ticket status id is invalid.'] });
    expect((await api.put(`/tickets/${created.id}`, { ticket_status_id: null })).body.errors).toEqual({ ticket_status_id: ['The ticket status id field is required.'] });
    expect((await api.get(`/tickets/${created.id}`)).body).toEqual(res.body);
  });

  it('refuses bad list parameters with 422', async () => {
    const api = await newClient(app);
    expect((await api.get('/tickets?per_page=101')).body).toEqual({ message: 'The given data was invalid.', errors: { per_page: ['The per page field must not be greater than 100.'] } });
    expect((await api.get('/tickets?status=open')).body.errors).toEqual({ status: ['The status parameter is not supported.'] });
  });

  it('answers 404 for unknown ids and for other workspaces', async () => {
    const api = await newClient(app);
    const other = await newClient(app);
    const created = await ticket(api, 'Mine', (await status(api, 'Open')).id);
    const theirs = await status(other, 'Open');
    for (const res of [
      await other.get(`/tickets/${created.id}`),
      await other.put(`/tickets/${created.id}`, { title: 'x', ticket_status_id: theirs.id }),
      await other.delete(`/tickets/${created.id}`),
      await api.get('/tickets/01ARZ3NDEKTSV4RRFFQ69G5FAV'),
      await api.put('/tickets/01ARZ3NDEKTSV4RRFFQ69G5FAV', { title: 'x' }),
      await api.delete('/tickets/01ARZ3NDEKTSV4RRFFQ69G5FAV'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Ticket not found.' });
    }
    expect((await api.get(`/tickets/${created.id}`)).body).toEqual(created);
  });

  it('deletes with 204', async () => {
    const api = await newClient(app);
    const created = await ticket(api, 'Gone', (await status(api, 'Open')).id);
    const res = await api.delete(`/tickets/${created.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect((await api.get(`/tickets/${created.id}`)).status).toBe(404);
  });

  it('shows the status and its tickets both ways over GraphQL', async () => {
    const api = await newClient(app);
    const open = await status(api, 'Open');
    const done = await status(api, 'Done', { is_closed: true });
    const a = await ticket(api, 'A', open.id);
    const b = await ticket(api, 'B', open.id);
    const c = await ticket(api, 'C', done.id);
    await api.put(`/tickets/${a.id}`, { ticket_status_id: done.id });
    await api.put(`/tickets/${a.id}`, { ticket_status_id: open.id });
    const res = await api.graphql('query($id: ID!) { ticketStatus(id: $id) { name isClosed tickets { title position ticketStatusId status { name } } } }', { id: open.id });
    expect(res.body.data.ticketStatus).toEqual({
      name: 'Open',
      isClosed: false,
      tickets: [
        { title: 'B', position: 2, ticketStatusId: open.id, status: { name: 'Open' } },
        { title: 'A', position: 3, ticketStatusId: open.id, status: { name: 'Open' } },
      ],
    });
    const one = await api.graphql('query($id: ID!) { ticket(id: $id) { title status { id isClosed tickets { id } } } }', { id: c.id });
    expect(one.body.data.ticket).toEqual({ title: 'C', status: { id: done.id, isClosed: true, tickets: [{ id: c.id }] } });
    const page = await api.graphql('query($s: ID) { tickets(filter: { ticketStatusId: $s }) { total data { id } } ticketStatuses { total data { name } } }', { s: open.id });
    expect(page.body.data).toEqual({ tickets: { total: 2, data: [{ id: b.id }, { id: a.id }] }, ticketStatuses: { total: 2, data: [{ name: 'Open' }, { name: 'Done' }] } });
  });

  it('serves the same rules over GraphQL', async () => {
    const api = await newClient(app);
    // A required field left out is GraphQL's own refusal (the schema marks it); a present but invalid one is the field map.
    const untyped = await api.graphql('mutation { createTicket(input: { title: "" }) { id } }');
    expect(untyped.body.errors[0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
    const bad = await api.graphql('mutation { createTicket(input: { title: "", ticketStatusId: "01JUNKJUNKJUNKJUNKJUNKJUNK" }) { id } }');
    expect(bad.status).toBe(200);
    expect(bad.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: { title: ['The title field is required.'], ticket_status_id: ['The selected ticket status id is invalid.'] },
    });
    const s = await api.graphql('mutation { createTicketStatus(input: { name: "New" }) { id order isClosed } }');
    expect(s.body.data.createTicketStatus).toMatchObject({ order: 0, isClosed: false });
    const dup = await api.graphql('mutation { createTicketStatus(input: { name: "New" }) { id } }');
    expect(dup.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: { name: ['The name has already been taken.'] } });
    const t = await api.graphql('mutation($s: ID!) { createTicket(input: { title: "G", ticketStatusId: $s }) { title position status { name } } }', { s: s.body.data.createTicketStatus.id });
    expect(t.body.data.createTicket).toEqual({ title: 'G', position: 1, status: { name: 'New' } });
    const inUse = await api.graphql('mutation($s: ID!) { deleteTicketStatus(id: $s) }', { s: s.body.data.createTicketStatus.id });
    expect(inUse.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: { id: ['The ticket status is used by tickets and cannot be deleted.'] } });
    for (const query of ['query { ticket(id: "nope") { id } }', 'query { ticketStatus(id: "nope") { id } }']) {
      const missing = await api.graphql(query);
      expect(missing.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('reads a page of tickets with their statuses in a fixed number of SQL statements', async () => {
    const api = await newClient(app);
    const statuses = [await status(api, 'A'), await status(api, 'B')];
    for (let i = 0; i < 20; i++) await ticket(api, `T${i}`, statuses[i % 2]!.id);
    const query = (n: number) => `{ tickets(perPage: ${n}) { data { id status { name tickets { id } } } } }`;
    let reply: any;
    const many = await countStatements(app, async () => {
      reply = await api.graphql(query(20));
    });
    expect(reply.body.data.tickets.data).toHaveLength(20);
    expect(reply.body.data.tickets.data[0].status.tickets).toHaveLength(10);
    expect(await countStatements(app, () => api.graphql(query(2)))).toBe(many);
  });
});
