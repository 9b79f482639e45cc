import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';
import { createKey } from '../src/auth/api-keys.js';
import { newId } from '../src/db/ids.js';

// API.md section 12's notes: a record of their own about contacts, companies and deals, on both faces.
// `author_id` and the id arrays are request fields: the answer shows `author` and `targets`.
const NOTE_FIELDS = ['id', 'body', 'pinned', 'author', 'targets', 'created_at', 'updated_at'].sort();

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

/** A workspace with a user, a contact, a company and a deal to write notes about. */
async function crm(api?: Client) {
  api ??= await newClient(app);
  const user = (await api.post('/users', { name: 'Ann Seller', email: 'ann@example.com' })).body;
  const contact = (await api.post('/contacts', { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' })).body;
  const bare = (await api.post('/contacts', { first_name: 'Grace', email: 'grace@example.com' })).body;
  const company = (await api.post('/companies', { name: 'Analytical Engines' })).body;
  const pipeline = (await api.post('/pipelines', { name: 'Sales', stages: [{ name: 'Lead' }] })).body;
  const deal = (await api.post('/deals', { name: 'Engine order', deal_stage_external_id: pipeline.stages[0].external_id, user_id: user.id })).body;
  for (const record of [user, contact, bare, company, deal]) expect(record.id).toMatch(/^[0-9A-Z]{26}$/);
  return { api, user, contact, bare, company, deal };
}

describe('notes', () => {
  it('creates a note about each kind of record, kept exactly as written, with its author and targets', async () => {
    const { api, user, contact, company, deal } = await crm();
    const body = '  # Call with Ada\n\n- wants **3** engines\n\ttabbed line  \n';
    const res = await api.post('/notes', { body, author_id: user.id, contact_ids: [contact.id], company_ids: [company.id], deal_ids: [deal.id] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(NOTE_FIELDS);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      body,
      pinned: false,
      author: { id: user.id, name: 'Ann Seller' },
      targets: [
        { type: 'contacts', id: contact.id, title: 'Ada Lovelace' },
        { type: 'companies', id: company.id, title: 'Analytical Engines' },
        { type: 'deals', id: deal.id, title: 'Engine order' },
      ],
      created_at: expect.any(String),
      updated_at: res.body.created_at,
    });
    expect((await api.get(`/notes/${res.body.id}`)).body).toEqual(res.body);
    // One target is enough, of any kind; no author is null.
    for (const target of [{ contact_ids: [contact.id] }, { company_ids: [company.id] }, { deal_ids: [deal.id] }]) {
      const one = await api.post('/notes', { body: 'x', pinned: true, ...target });
      expect(one.status).toBe(201);
      expect(one.body).toMatchObject({ pinned: true, author: null });
      expect(one.body.targets).toHaveLength(1);
    }
  });

  it('refuses a note about nothing, unknown records, an unknown author and a body out of bounds (422 on the field), and stores nothing', async () => {
    const { api, contact } = await crm();
    const other = await crm();
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ body: 'x' }, { contact_ids: ['A note needs at least one contact, company or deal.'] }],
      [{ body: 'x', contact_ids: [], company_ids: [], deal_ids: [] }, { contact_ids: ['A note needs at least one contact, company or deal.'] }],
      [{ contact_ids: [contact.id] }, { body: ['The body field is required.'] }],
      [{ body: '', contact_ids: [contact.id] }, { body: ['The body field is required.'] }],
      [{ body: 'x'.repeat(100_001), contact_ids: [contact.id] }, { body: ['The body field must not be greater than 100000 characters.'] }],
      [{ body: 'x', contact_ids: [other.contact.id] }, { contact_ids: ['The selected contact ids is invalid.'] }],
      [{ body: 'x', company_ids: ['nope'] }, { company_ids: ['The selected company ids is invalid.'] }],
      [{ body: 'x', deal_ids: [other.deal.id] }, { deal_ids: ['The selected deal ids is invalid.'] }],
      [{ body: 'x', contact_ids: [contact.id], author_id: other.user.id }, { author_id: ['The selected author id is invalid.'] }],
      [{ body: 'a\u0000b', contact_ids: [contact.id] }, { body: ['The body field must not contain NUL characters.'] }],
    ];
    for (const [input, errors] of cases) {
      const res = await api.post('/notes', input);
      expect([input, res.status, res.body]).toEqual([input, 422, { message: expect.any(String), errors }]);
    }
    expect((await api.get('/notes')).body.total).toBe(0);
    expect((await api.post('/notes', { body: 'x'.repeat(100_000), contact_ids: [contact.id] })).status).toBe(201);
  });

  it('updates in part, replaces the target sets given, keeps the note about something, and answers 404 for an unknown note', async () => {
    const { api, user, contact, bare, company, deal } = await crm();
    const note = (await api.post('/notes', { body: 'First', author_id: user.id, contact_ids: [contact.id], company_ids: [company.id] })).body;
    const pinned = await api.put(`/notes/${note.id}`, { pinned: true });
    expect(pinned.status).toBe(200);
    expect(pinned.body).toEqual({ ...note, pinned: true, updated_at: expect.any(String) });
    const moved = await api.put(`/notes/${note.id}`, { contact_ids: [bare.id, contact.id], deal_ids: [deal.id], author_id: null });
    expect(moved.body.targets).toEqual([
      ...[{ type: 'contacts', id: bare.id, title: 'Grace' }, { type: 'contacts', id: contact.id, title: 'Ada Lovelace' }].sort((a, b) => (a.id < b.id ? -1 : 1)),
      { type: 'companies', id: company.id, title: 'Analytical Engines' },
      { type: 'deals', id: deal.id, title: 'Engine order' },
    ]);
    expect(moved.body.author).toBeNull();
    // Emptying every set would leave a note about nothing.
    const emptied = await api.put(`/notes/${note.id}`, { contact_ids: [], company_ids: [], deal_ids: [] });
    expect([emptied.status, emptied.body.errors]).toEqual([422, { contact_ids: ['A note needs at least one contact, company or deal.'] }]);
    expect((await api.get(`/notes/${note.id}`)).body).toEqual(moved.body);
    const unknown = await api.put(`/notes/${'0'.repeat(26)}`, { body: 'y' });
    expect([unknown.status, unknown.body]).toEqual([404, { message: 'Note not found.' }]);
    expect((await api.put(`/notes/${note.id}`, { body: '' })).status).toBe(422);
  });

  it('lists with each target filter, sorts, walks by cursor, and deletes (204, then 404)', async () => {
    const { api, contact, bare, company, deal } = await crm();
    const about = async (body: string, targets: Record<string, string[]>) => (await api.post('/notes', { body, ...targets })).body.id as string;
    const a = await about('a', { contact_ids: [contact.id] });
    const b = await about('b', { contact_ids: [contact.id, bare.id], company_ids: [company.id] });
    const c = await about('c', { deal_ids: [deal.id] });
    const ids = async (query: string) => (await api.get(`/notes?${query}`)).body.data.map((n: { id: string }) => n.id);
    expect(await ids(`contact_id=${contact.id}`)).toEqual([a, b]);
    expect(await ids(`contact_id=${bare.id}`)).toEqual([b]);
    expect(await ids(`company_id=${company.id}`)).toEqual([b]);
    expect(await ids(`deal_id=${deal.id}`)).toEqual([c]);
    expect(await ids('deal_id=nope')).toEqual([]);
    expect(await ids('sort=-id')).toEqual([c, b, a]);
    const first = await api.get('/notes?per_page=2&cursor=');
    expect(first.body.data.map((n: { id: string }) => n.id)).toEqual([a, b]);
    expect((await api.get(`/notes?per_page=2&cursor=${first.body.next_cursor}`)).body.data.map((n: { id: string }) => n.id)).toEqual([c]);
    expect((await api.get('/notes?sort=body')).status).toBe(422);
    expect((await api.delete(`/notes/${b}`)).status).toBe(204);
    expect((await api.get(`/notes/${b}`)).status).toBe(404);
    expect((await api.delete(`/notes/${b}`)).status).toBe(404);
    expect(await ids(`contact_id=${contact.id}`)).toEqual([a]);
    // A deleted target leaves the note; a deleted author leaves it without one.
    expect((await api.delete(`/deals/${deal.id}`)).status).toBe(204);
    expect((await api.get(`/notes/${c}`)).body.targets).toEqual([]);
  });

  it('runs through GraphQL with the same rules', async () => {
    const { api, contact } = await crm();
    const created = await api.graphql('mutation($input: CreateNoteInput!) { createNote(input: $input) { id body targets { type id title } author { id } } }', { input: { body: 'From GraphQL', contactIds: [contact.id] } });
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data.createNote.id;
    expect(created.body.data.createNote).toEqual({ id, body: 'From GraphQL', targets: [{ type: 'contacts', id: contact.id, title: 'Ada Lovelace' }], author: null });
    const listed = await api.graphql('query($c: ID) { notes(filter: { contactId: $c }) { total data { id } } note(id: "nope") { id } }', { c: contact.id });
    expect(listed.body.data.notes).toEqual({ total: 1, data: [{ id }] });
    expect(listed.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['NOT_FOUND']);
    // Contact.notes stays the contact's own text.
    const shown = await api.graphql('query($id: ID!) { contact(id: $id) { notes } }', { id: contact.id });
    expect(shown.body.data.contact).toEqual({ notes: null });
    const refused = await api.graphql('mutation { createNote(input: { body: "x" }) { id } }');
    expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('records note.created, note.updated and note.deleted, is found by the words of its body, and exports as CSV with its links', async () => {
    const { api, contact, company } = await crm();
    const note = (await api.post('/notes', { body: 'Quarterly review\nDiscussed the zeppelin budget', contact_ids: [contact.id], company_ids: [company.id] })).body;
    await api.put(`/notes/${note.id}`, { pinned: true });
    const found = await api.get('/search?q=zeppelin');
    expect(found.body.data).toEqual([{ type: 'notes', id: note.id, title: 'Quarterly review', subtitle: 'Ada Lovelace, Analytical Engines', record: { ...note, pinned: true, updated_at: expect.any(String) } }]);
    expect((await api.get('/search?q=zeppelin&types=contacts')).body.data).toEqual([]);
    const csv = await api.get(`/notes/export?contact_id=${contact.id}`);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const [header, row] = csv.text.trim().split('\r\n');
    expect(header).toBe('id,body,pinned,author_id,author.id,author.name,created_at,updated_at,contact_ids,company_ids,deal_ids');
    expect(row).toContain(`,${contact.id},${company.id},`);
    await api.delete(`/notes/${note.id}`);
    expect((await api.get('/search?q=zeppelin')).body.data).toEqual([]);
    const events = await api.get(`/events?record_id=${note.id}`);
    expect(events.body.data.map((e: { type: string }) => e.type).sort()).toEqual(['note.created', 'note.deleted', 'note.updated']);
  });

  it('is in the notes scopes: notes:read reads, only notes:write writes', async () => {
    const workspace = `ws-${newId()}`;
    const { api, contact } = await crm(await newClient(app, workspace));
    const note = (await api.post('/notes', { body: 'x', contact_ids: [contact.id] })).body;
    const { key } = await createKey(app.database.prisma, workspace, 'reader', { scopes: ['notes:read'] });
    const reader = (method: string, path: string, body?: unknown) =>
      fetch(`${app.url}/api/v1${path}`, { method, headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    expect((await reader('GET', `/notes/${note.id}`)).status).toBe(200);
    expect((await reader('POST', '/notes', { body: 'y', contact_ids: [contact.id] })).status).toBe(403);
    expect((await reader('GET', `/contacts/${contact.id}`)).status).toBe(403);
  });
});
