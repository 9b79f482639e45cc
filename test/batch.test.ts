import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type Reply, type TestApp, countStatements, newClient, startApp } from './support/app.js';

// Batch writes (API.md section 8): POST and PUT /{resource}/batch, PUT /contacts/batch/upsert
// and their GraphQL mutations. All or nothing, every problem of every item keyed
// `inputs.<i>.<field>`, records in input order, one event per record.

const FIELDS = {
  contacts: ['id', 'first_name', 'last_name', 'email', 'notes', 'properties', 'created_at', 'updated_at'],
  companies: ['id', 'name', 'domain', 'notes', 'created_at', 'updated_at'],
  products: ['id', 'name', 'sku', 'type', 'description', 'price', 'cost', 'currency', 'unit', 'tax_rate', 'is_active', 'created_at', 'updated_at'],
  deals: ['id', 'name', 'estimated_value', 'currency', 'expected_close_date', 'stage', 'user', 'created_at', 'updated_at'],
  tasks: ['id', 'title', 'description', 'due_date', 'is_done', 'priority', 'position', 'created_at', 'updated_at'],
} as const;

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const created = async (reply: Promise<Reply>) => {
  const r = await reply;
  if (r.status !== 201) throw new Error(`expected 201, got ${r.status}: ${r.text}`);
  return r.body;
};

/** Each record of a batch's answer is exactly what its GET answers, with exactly the resource's fields. */
async function expectRecords(api: Client, resource: keyof typeof FIELDS, data: any[]) {
  for (const record of data) {
    expect(Object.keys(record).sort()).toEqual([...FIELDS[resource]].sort());
    expect(record).toEqual((await api.get(`/${resource}/${record.id}`)).body);
  }
}

const total = async (api: Client, path: string) => (await api.get(path)).body.total as number;
const newestEventId = async (api: Client) => (await api.get('/events?per_page=1')).body.data[0]?.id ?? '';

describe('contacts', () => {
  it('POST /contacts/batch creates every item, in input order, with one contact.created event each', async () => {
    const api = await newClient(app);
    await created(api.post('/property-definitions', { object: 'contact', key: 'tier', label: 'Tier', type: 'enum', options: ['gold', 'silver'] }));
    const company = await created(api.post('/companies', { name: 'Acme' }));
    const inputs = [
      { first_name: 'Ada', email: 'Ada@Example.com', properties: { tier: 'gold' } },
      { first_name: 'Bo', last_name: 'Diddley', email: 'bo@example.com', company_ids: [company.id, company.id] },
      { first_name: 'Cy', email: 'cy@example.com', notes: 'n', unknown_field: 1, id: 'ignored' },
    ];
    const reply = await api.post('/contacts/batch', { inputs });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.body)).toEqual(['data']);
    const data = reply.body.data as any[];
    expect(data.map((c) => [c.first_name, c.last_name, c.email, c.notes, c.properties])).toEqual([
      ['Ada', null, 'ada@example.com', null, { tier: 'gold' }],
      ['Bo', 'Diddley', 'bo@example.com', null, {}],
      ['Cy', null, 'cy@example.com', 'n', {}],
    ]);
    expect(data.map((c) => c.id)).toEqual(data.map((c) => c.id).sort());
    await expectRecords(api, 'contacts', data);
    const linked = await api.graphql('query ($id: ID!) { contact(id: $id) { companies { id } } }', { id: data[1].id });
    expect(linked.body.data.contact.companies).toEqual([{ id: company.id }]);

    const events = (await api.get('/events?type=contact.created&per_page=100')).body;
    expect(events.total).toBe(3);
    expect((events.data as any[]).map((e) => e.record_id).sort()).toEqual(data.map((c) => c.id).sort());
    for (const event of events.data) expect(event.data).toEqual({ object: data.find((c) => c.id === event.record_id), previous_attributes: null });
  });

  it('PUT /contacts/batch updates every item (partial updates), in input order', async () => {
    const api = await newClient(app);
    const a = await created(api.post('/contacts', { first_name: 'Ada', email: 'ada@example.com', notes: 'keep' }));
    const b = await created(api.post('/contacts', { first_name: 'Bo', email: 'bo@example.com' }));
    const start = await newestEventId(api);
    const reply = await api.put('/contacts/batch', {
      inputs: [
        { id: b.id, last_name: 'Diddley', email: 'BO2@example.com' },
        { id: a.id, first_name: 'Ada L.', email: 'ada@example.com' },
      ],
    });
    expect(reply.status).toBe(200);
    expect((reply.body.data as any[]).map((c) => [c.id, c.first_name, c.last_name, c.email, c.notes])).toEqual([
      [b.id, 'Bo', 'Diddley', 'bo2@example.com', null],
      [a.id, 'Ada L.', null, 'ada@example.com', 'keep'],
    ]);
    await expectRecords(api, 'contacts', reply.body.data);
    const events = ((await api.get('/events?per_page=100')).body.data as any[]).filter((e) => e.id > start);
    expect(events.map((e) => [e.type, e.record_id]).sort()).toEqual([
      ['contact.updated', a.id],
      ['contact.updated', b.id],
    ].sort());
  });

  it('PUT /contacts/batch/upsert: 200 for any mix, found by e-mail case-insensitively', async () => {
    const api = await newClient(app);
    const known = await created(api.post('/contacts', { first_name: 'Ada', email: 'ada@example.com', notes: 'keep' }));
    const reply = await api.put('/contacts/batch/upsert', {
      inputs: [
        { first_name: 'New', email: 'new@example.com' },
        { first_name: 'Ada L.', email: 'ADA@example.com' },
      ],
    });
    expect(reply.status).toBe(200);
    const [fresh, found] = reply.body.data;
    expect([found.id, found.first_name, found.notes]).toEqual([known.id, 'Ada L.', 'keep']);
    expect([fresh.id === known.id, fresh.email]).toEqual([false, 'new@example.com']);
    await expectRecords(api, 'contacts', reply.body.data);
    expect(await total(api, '/contacts')).toBe(2);
    expect((await api.get('/events?type=contact.*&per_page=100')).body.data.map((e: any) => e.type).sort()).toEqual(['contact.created', 'contact.created', 'contact.updated']);

    // All created, all updated: 200 as well.
    expect((await api.put('/contacts/batch/upsert', { inputs: [{ first_name: 'X', email: 'x@example.com' }] })).status).toBe(200);
    expect((await api.put('/contacts/batch/upsert', { inputs: [{ first_name: 'X2', email: 'x@example.com' }] })).status).toBe(200);
  });

  it('refuses two items naming one e-mail, in a create and in an upsert', async () => {
    const api = await newClient(app);
    await created(api.post('/contacts', { first_name: 'Taken', email: 'taken@example.com' }));
    const inputs = [
      { first_name: 'A', email: 'same@example.com' },
      { first_name: 'B', email: 'other@example.com' },
      { first_name: 'C', email: ' SAME@example.com ' },
      { first_name: 'D', email: 'taken@EXAMPLE.com' },
    ];
    const create = await api.post('/contacts/batch', { inputs });
    expect([create.status, create.body]).toEqual([
      422,
      {
        message: 'The given data was invalid.',
        errors: {
          'inputs.2.email': ['The inputs.2.email has already been taken.'],
          'inputs.3.email': ['The inputs.3.email has already been taken.'],
        },
      },
    ]);
    // An upsert updates the contact holding an e-mail: only the repeat is refused.
    const upsert = await api.put('/contacts/batch/upsert', { inputs });
    expect([upsert.status, upsert.body.errors]).toEqual([422, { 'inputs.2.email': ['The inputs.2.email has already been taken.'] }]);
    expect(await total(api, '/contacts')).toBe(1);
  });

  it('is all or nothing: every problem of every item, keyed inputs.<i>.<field>; nothing written, no event', async () => {
    const api = await newClient(app);
    await created(api.post('/property-definitions', { object: 'contact', key: 'score', label: 'Score', type: 'number' }));
    const start = await newestEventId(api);
    const reply = await api.post('/contacts/batch', {
      inputs: [
        { first_name: 'Fine', email: 'fine@example.com' },
        { first_name: '', email: 'not-an-email', last_name: 7 },
        { first_name: 'Fine too', email: 'fine2@example.com', properties: { score: 'high', nope: 1 } },
        { email: 'fine@example.com', company_ids: ['01ARZ3NDEKTSV4RRFFQ69G5FAV'] },
        { first_name: 'Typed', email: 42, company_ids: 'x' },
      ],
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      message: 'The given data was invalid.',
      errors: {
        'inputs.1.first_name': ['The inputs.1.first_name field is required.'],
        'inputs.1.email': ['The inputs.1.email field must be a valid email address.'],
        'inputs.1.last_name': ['The inputs.1.last_name field must be a string.'],
        'inputs.2.properties.score': ['The inputs.2.properties.score field must be a number.'],
        'inputs.2.properties.nope': ['The inputs.2.properties.nope field is not an active contact property.'],
        'inputs.3.first_name': ['The inputs.3.first_name field is required.'],
        'inputs.3.company_ids': ['The selected inputs.3.company_ids is invalid.'],
        'inputs.3.email': ['The inputs.3.email has already been taken.'],
        'inputs.4.email': ['The inputs.4.email field must be a string.'],
        'inputs.4.company_ids': ['The inputs.4.company_ids field must be an array.'],
      },
    });
    expect(await total(api, '/contacts')).toBe(0);
    expect(await newestEventId(api)).toBe(start);
  });

  it('bounds inputs to 1..100 items, and wants a list of objects', async () => {
    const api = await newClient(app);
    // An id too, so that the update batch finds nothing else to say about a sound item.
    const item = (i: number) => ({ id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', first_name: `N${i}`, email: `n${i}@example.com` });
    const cases: [unknown, Record<string, string[]>][] = [
      [{ inputs: Array.from({ length: 101 }, (_, i) => item(i)) }, { inputs: ['The inputs field must not have more than 100 items.'] }],
      [{ inputs: [] }, { inputs: ['The inputs field must have at least 1 items.'] }],
      [{}, { inputs: ['The inputs field is required.'] }],
      [{ inputs: null }, { inputs: ['The inputs field is required.'] }],
      [{ inputs: item(0) }, { inputs: ['The inputs field must be an array.'] }],
      [{ inputs: 'x' }, { inputs: ['The inputs field must be an array.'] }],
      [{ inputs: [item(0), 3] }, { 'inputs.1': ['The inputs.1 field must be an object.'] }],
      [[item(0)], { body: ['The body must be a JSON object.'] }],
    ];
    for (const method of ['POST', 'PUT'] as const) {
      for (const [body, errors] of cases) {
        const reply = await api.request(method, '/contacts/batch', { body });
        expect([method, JSON.stringify(body).slice(0, 60), reply.status, reply.body]).toEqual([method, JSON.stringify(body).slice(0, 60), 422, { message: 'The given data was invalid.', errors }]);
      }
    }
    expect((await api.put('/contacts/batch/upsert', { inputs: [] })).body.errors).toEqual({ inputs: ['The inputs field must have at least 1 items.'] });
    // 100 is fine.
    const hundred = await api.post('/contacts/batch', { inputs: Array.from({ length: 100 }, (_, i) => ({ ...item(i), id: undefined })) });
    expect([hundred.status, hundred.body.data.length]).toEqual([201, 100]);
    expect(hundred.body.data.map((c: any) => c.first_name)).toEqual(Array.from({ length: 100 }, (_, i) => `N${i}`));
    expect((await api.get('/events?type=contact.created')).body.total).toBe(100);
    // The other batch routes read the body the same way.
    for (const path of ['/companies/batch', '/products/batch', '/deals/batch', '/tasks/batch']) {
      expect((await api.post(path, {})).body.errors).toEqual({ inputs: ['The inputs field is required.'] });
      expect((await api.put(path, { inputs: [] })).body.errors).toEqual({ inputs: ['The inputs field must have at least 1 items.'] });
    }
    // Unreadable bodies as on every route.
    expect((await api.request('POST', '/contacts/batch', { raw: '{"inputs":', headers: { 'Content-Type': 'application/json' } })).status).toBe(400);
    expect((await api.request('POST', '/contacts/batch', { raw: 'inputs', headers: { 'Content-Type': 'text/plain' } })).status).toBe(415);
  });

  it('refuses an update item whose id is unknown, another workspace\'s or repeated (422, not 404)', async () => {
    const api = await newClient(app);
    const other = await newClient(app);
    const mine = await created(api.post('/contacts', { first_name: 'Mine', email: 'mine@example.com' }));
    const theirs = await created(other.post('/contacts', { first_name: 'Theirs', email: 'theirs@example.com' }));
    const reply = await api.put('/contacts/batch', {
      inputs: [
        { id: mine.id, first_name: 'Changed' },
        { id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', first_name: 'Ghost' },
        { id: theirs.id, first_name: 'Stolen' },
        { id: mine.id, notes: 'twice' },
        { first_name: 'No id' },
      ],
    });
    expect([reply.status, reply.body.errors]).toEqual([
      422,
      {
        'inputs.1.id': ['The selected inputs.1.id is invalid.'],
        'inputs.2.id': ['The selected inputs.2.id is invalid.'],
        'inputs.3.id': ['The inputs.3.id field has a duplicate value.'],
        'inputs.4.id': ['The inputs.4.id field is required.'],
      },
    ]);
    expect((await api.get(`/contacts/${mine.id}`)).body.first_name).toBe('Mine');
    expect((await other.get(`/contacts/${theirs.id}`)).body.first_name).toBe('Theirs');
    // Unique e-mails: one held by another contact is taken; a contact keeping its own is not.
    const next = await created(api.post('/contacts', { first_name: 'Next', email: 'next@example.com' }));
    const taken = await api.put('/contacts/batch', { inputs: [{ id: mine.id, email: 'mine@example.com' }, { id: next.id, email: 'MINE@example.com' }] });
    expect([taken.status, taken.body.errors]).toEqual([422, { 'inputs.1.email': ['The inputs.1.email has already been taken.'] }]);
  });

  it('routes: literal segments win, GET /contacts/batch is the contact "batch" (404)', async () => {
    const api = await newClient(app);
    expect(await api.get('/contacts/batch')).toMatchObject({ status: 404, body: { message: 'Contact not found.' } });
    expect((await api.delete('/contacts/batch')).status).toBe(404);
    const patch = await api.request('PATCH', '/contacts/batch', { body: { inputs: [] } });
    expect([patch.status, patch.headers.get('allow')?.split(', ').sort()]).toEqual([405, ['DELETE', 'GET', 'HEAD', 'POST', 'PUT']]);
    expect((await api.post('/contacts/batch/upsert', { inputs: [] })).status).toBe(405);
  });

  it('Idempotency-Key: a retry of a batch answers the first response and creates nothing more', async () => {
    const api = await newClient(app);
    const body = { inputs: [{ first_name: 'A', email: 'a@example.com' }, { first_name: 'B', email: 'b@example.com' }] };
    const headers = { 'Idempotency-Key': 'batch-1' };
    const first = await api.request('POST', '/contacts/batch', { body, headers });
    const again = await api.request('POST', '/contacts/batch', { body, headers });
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect(again.body).toEqual(first.body);
    expect(await total(api, '/contacts')).toBe(2);
    expect((await api.get('/events?type=contact.created')).body.total).toBe(2);
    // The same key with another body is refused.
    const other = await api.request('POST', '/contacts/batch', { body: { inputs: [{ first_name: 'C', email: 'c@example.com' }] }, headers });
    expect([other.status, other.body.errors]).toEqual([422, { idempotency_key: ['The Idempotency-Key was already used with another request.'] }]);
    expect(await total(api, '/contacts')).toBe(2);
  });

  it('races: concurrent upserts of the same new e-mails make one contact each; a create losing the race is refused on its item', async () => {
    const api = await newClient(app);
    const inputs = (tag: string) => [0, 1, 2].map((i) => ({ first_name: `${tag}${i}`, email: `race${i}@example.com` }));
    const upserts = await Promise.all(['a', 'b', 'c', 'd'].map((tag) => api.put('/contacts/batch/upsert', { inputs: inputs(tag) })));
    expect(upserts.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await total(api, '/contacts')).toBe(3);
    expect((await api.get('/events?type=contact.created')).body.total).toBe(3);
    const body = { inputs: [{ first_name: 'Ok', email: 'ok@example.com' }, { first_name: 'Twice', email: 'twice@example.com' }] };
    const creates = await Promise.all([api.post('/contacts/batch', body), api.post('/contacts/batch', { inputs: [body.inputs[1]] })]);
    const [won, lost] = creates[0].status === 201 ? creates : [creates[1], creates[0]];
    expect([won!.status, lost!.status]).toEqual([201, 422]);
    expect(Object.values(lost!.body.errors)).toEqual([['The inputs.' + (lost === creates[0] ? '1' : '0') + '.email has already been taken.']]);
    expect(await total(api, '/contacts')).toBe(3 + won!.body.data.length);
  });

  it('GraphQL: createContacts, updateContacts, upsertContacts, with errors named as in REST', async () => {
    const api = await newClient(app);
    const made = await api.graphql('mutation ($inputs: [CreateContactInput!]!) { createContacts(inputs: $inputs) { id firstName email } }', {
      inputs: [
        { firstName: 'Ada', email: 'ADA@example.com' },
        { firstName: 'Bo', email: 'bo@example.com' },
      ],
    });
    expect(made.body.errors).toBeUndefined();
    const [ada, bo] = made.body.data.createContacts;
    expect([ada.firstName, ada.email, bo.firstName]).toEqual(['Ada', 'ada@example.com', 'Bo']);
    const updated = await api.graphql('mutation ($inputs: [UpdateContactsItem!]!) { updateContacts(inputs: $inputs) { id lastName } }', {
      inputs: [{ id: bo.id, lastName: 'D' }],
    });
    expect(updated.body.data.updateContacts).toEqual([{ id: bo.id, lastName: 'D' }]);
    const upserted = await api.graphql('mutation ($inputs: [CreateContactInput!]!) { upsertContacts(inputs: $inputs) { created contact { id } } }', {
      inputs: [
        { firstName: 'Ada', email: 'ada@example.com' },
        { firstName: 'Cy', email: 'cy@example.com' },
      ],
    });
    expect(upserted.body.data.upsertContacts).toEqual([
      { created: false, contact: { id: ada.id } },
      { created: true, contact: { id: expect.any(String) } },
    ]);
    const refused = await api.graphql('mutation ($inputs: [CreateContactInput!]!) { createContacts(inputs: $inputs) { id } }', {
      inputs: [
        { firstName: 'Ok', email: 'ok@example.com' },
        { firstName: 'Bad', email: 'bad' },
      ],
    });
    expect(refused.body.data).toEqual({ createContacts: null });
    expect(refused.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: { 'inputs.1.email': ['The inputs.1.email field must be a valid email address.'] } });
    expect(await total(api, '/contacts')).toBe(3);
  });

  it('validates a batch with a bounded number of statements, whatever its size', async () => {
    const api = await newClient(app);
    await created(api.post('/property-definitions', { object: 'contact', key: 'tier', label: 'Tier', type: 'string' }));
    const company = await created(api.post('/companies', { name: 'Acme' }));
    let n = 0;
    const batch = (size: number) => ({
      inputs: Array.from({ length: size }, (_, i) => ({ first_name: 'S', email: `s${(n += 1)}@example.com`, properties: { tier: 'x' }, ...(i === 0 ? { company_ids: [company.id] } : {}) })),
    });
    // A refused batch (one bad item) reads what it checks and writes nothing: the same statements for 5 items as for 50.
    const refused = (size: number) => {
      const body = batch(size);
      body.inputs[size - 1]!.email = 'bad';
      return countStatements(app, () => api.post('/contacts/batch', body));
    };
    expect(await refused(50)).toBe(await refused(5));
    // Accepted: one INSERT per run of unlinked rows (a linked row has its own), the events' REST objects in one query.
    const small = await countStatements(app, () => api.post('/contacts/batch', batch(5)));
    const large = await countStatements(app, () => api.post('/contacts/batch', batch(50)));
    expect(large).toBe(small);
  });
});

describe('companies, products, deals and tasks', () => {
  it('companies: create and update batches', async () => {
    const api = await newClient(app);
    const contact = await created(api.post('/contacts', { first_name: 'Ada', email: 'ada@example.com' }));
    const made = await api.post('/companies/batch', { inputs: [{ name: 'Acme', domain: 'ACME.example', contact_ids: [contact.id] }, { name: 'Globex' }] });
    expect(made.status).toBe(201);
    expect(made.body.data.map((c: any) => [c.name, c.domain])).toEqual([['Acme', 'acme.example'], ['Globex', null]]);
    await expectRecords(api, 'companies', made.body.data);
    const [acme, globex] = made.body.data;
    const updated = await api.put('/companies/batch', { inputs: [{ id: globex.id, notes: 'n', contact_ids: [contact.id] }, { id: acme.id, name: 'Acme Inc.', contact_ids: [] }] });
    expect(updated.status).toBe(200);
    expect(updated.body.data.map((c: any) => [c.id, c.name, c.notes])).toEqual([[globex.id, 'Globex', 'n'], [acme.id, 'Acme Inc.', null]]);
    await expectRecords(api, 'companies', updated.body.data);
    const links = await api.graphql('query ($id: ID!) { contact(id: $id) { companies { id } } }', { id: contact.id });
    expect(links.body.data.contact.companies).toEqual([{ id: globex.id }]);
    const refused = await api.post('/companies/batch', { inputs: [{ name: 'Ok' }, { name: 'Bad', domain: 'not a host', contact_ids: ['nope'] }] });
    expect([refused.status, refused.body.errors]).toEqual([
      422,
      { 'inputs.1.domain': ['The inputs.1.domain field must be a valid host name.'], 'inputs.1.contact_ids': ['The selected inputs.1.contact_ids is invalid.'] },
    ]);
    expect(await total(api, '/companies')).toBe(2);
    expect((await api.get('/events?type=company.*')).body.total).toBe(4);
  });

  it('products: create and update batches, SKUs unique across the batch and the workspace', async () => {
    const api = await newClient(app);
    const product = (sku: string | null, extra: object = {}) => ({ name: `P ${sku}`, sku, type: 'product', price: 10.5, currency: 'USD', unit: 'seat', ...extra });
    const made = await api.post('/products/batch', { inputs: [product('A-1', { tax_rate: 20 }), product(null), product(null)] });
    expect(made.status).toBe(201);
    expect(made.body.data.map((p: any) => [p.sku, p.price, p.tax_rate])).toEqual([['A-1', 10.5, 20], [null, 10.5, null], [null, 10.5, null]]);
    await expectRecords(api, 'products', made.body.data);
    const dup = await api.post('/products/batch', { inputs: [product('B-1'), product('B-1'), product('A-1'), product('C-1', { price: -1, type: 'thing' })] });
    expect([dup.status, dup.body.errors]).toEqual([
      422,
      {
        'inputs.1.sku': ['The inputs.1.sku has already been taken.'],
        'inputs.2.sku': ['The inputs.2.sku has already been taken.'],
        'inputs.3.price': ['The inputs.3.price field must be at least 0.'],
        'inputs.3.type': ['The selected inputs.3.type is invalid.'],
      },
    ]);
    const [a, b, c] = made.body.data;
    const updated = await api.put('/products/batch', { inputs: [{ id: c.id, sku: 'C-1', is_active: false }, { id: a.id, sku: 'A-1', price: 12 }, { id: b.id, name: 'Renamed' }] });
    expect(updated.status).toBe(200);
    expect(updated.body.data.map((p: any) => [p.id, p.sku, p.price, p.is_active, p.name])).toEqual([
      [c.id, 'C-1', 10.5, false, 'P null'],
      [a.id, 'A-1', 12, true, 'P A-1'],
      [b.id, null, 10.5, true, 'Renamed'],
    ]);
    await expectRecords(api, 'products', updated.body.data);
    expect((await api.get('/products?search=c-1')).body.data.map((p: any) => p.id)).toEqual([c.id]);
    const taken = await api.put('/products/batch', { inputs: [{ id: b.id, sku: 'A-1' }] });
    expect([taken.status, taken.body.errors]).toEqual([422, { 'inputs.0.sku': ['The inputs.0.sku has already been taken.'] }]);
  });

  it('deals: create and update batches, with the stage, owner, contacts and products checked', async () => {
    const api = await newClient(app);
    const user = await created(api.post('/users', { name: 'Owner', email: 'owner@example.com' }));
    const pipeline = await created(api.post('/pipelines', { name: 'Sales', stages: [{ name: 'New' }, { name: 'Won', probability: 100 }] }));
    const [first, won] = pipeline.stages;
    const contact = await created(api.post('/contacts', { first_name: 'Ada', email: 'ada@example.com' }));
    const product = await created(api.post('/products', { name: 'Seat', type: 'product', price: 1, currency: 'USD', unit: 'seat' }));
    const made = await api.post('/deals/batch', {
      inputs: [
        { name: 'One', deal_stage_external_id: first.external_id, user_id: user.id, estimated_value: 100.25 },
        { name: 'Two', deal_stage_external_id: won.external_id, user_id: user.id, contact_ids: [contact.id], product_ids: [product.id], expected_close_date: '2026-12-31' },
        { name: 'Three', deal_stage_external_id: first.external_id, user_id: user.id },
      ],
    });
    expect(made.status).toBe(201);
    expect(made.body.data.map((d: any) => [d.name, d.estimated_value, d.stage.external_id, d.user.id, d.expected_close_date, d.currency])).toEqual([
      ['One', 100.25, first.external_id, user.id, null, 'USD'],
      ['Two', 0, won.external_id, user.id, '2026-12-31', 'USD'],
      ['Three', 0, first.external_id, user.id, null, 'USD'],
    ]);
    await expectRecords(api, 'deals', made.body.data);
    const [one, two] = made.body.data;
    const links = await api.graphql('query ($id: ID!) { deal(id: $id) { contacts { id } products { id } } }', { id: two.id });
    expect(links.body.data.deal).toEqual({ contacts: [{ id: contact.id }], products: [{ id: product.id }] });

    const updated = await api.put('/deals/batch', { inputs: [{ id: two.id, deal_stage_external_id: first.external_id, contact_ids: [] }, { id: one.id, name: 'One+' }] });
    expect(updated.status).toBe(200);
    expect(updated.body.data.map((d: any) => [d.id, d.name, d.stage.external_id])).toEqual([[two.id, 'Two', first.external_id], [one.id, 'One+', first.external_id]]);
    await expectRecords(api, 'deals', updated.body.data);

    const refused = await api.post('/deals/batch', {
      inputs: [
        { name: 'Ok', deal_stage_external_id: first.external_id, user_id: user.id },
        { name: 'Bad', deal_stage_external_id: 'nope', user_id: 'nobody', product_ids: ['gone'] },
        { deal_stage_external_id: won.external_id, user_id: user.id, estimated_value: 'much' },
      ],
    });
    expect([refused.status, refused.body.errors]).toEqual([
      422,
      {
        'inputs.1.deal_stage_external_id': ['The selected inputs.1.deal_stage_external_id is invalid.'],
        'inputs.1.user_id': ['The selected inputs.1.user_id is invalid.'],
        'inputs.1.product_ids': ['The selected inputs.1.product_ids is invalid.'],
        'inputs.2.name': ['The inputs.2.name field is required.'],
        'inputs.2.estimated_value': ['The inputs.2.estimated_value field must be a number.'],
      },
    ]);
    expect(await total(api, '/deals')).toBe(3);
  });

  it('tasks: a create batch goes last in input order; an update batch', async () => {
    const api = await newClient(app);
    const user = await created(api.post('/users', { name: 'Owner', email: 'owner@example.com' }));
    const before = await created(api.post('/tasks', { title: 'Before' }));
    const made = await api.post('/tasks/batch', { inputs: [{ title: 'A', priority: 'high' }, { title: 'B', owner_ids: [user.id], assignee_ids: [user.id] }, { title: 'C', due_date: '2026-02-28' }] });
    expect(made.status).toBe(201);
    expect(made.body.data.map((t: any) => [t.title, t.position, t.priority, t.due_date])).toEqual([
      ['A', before.position + 1, 'high', null],
      ['B', before.position + 2, 'normal', null],
      ['C', before.position + 3, 'normal', '2026-02-28'],
    ]);
    await expectRecords(api, 'tasks', made.body.data);
    expect((await api.get(`/tasks?assignee_id=${user.id}`)).body.data.map((t: any) => t.title)).toEqual(['B']);
    const after = await created(api.post('/tasks', { title: 'After' }));
    expect(after.position).toBe(before.position + 4);
    const [a, b] = made.body.data;
    const updated = await api.put('/tasks/batch', { inputs: [{ id: b.id, is_done: true, assignee_ids: [] }, { id: a.id, title: 'A2' }] });
    expect(updated.status).toBe(200);
    expect(updated.body.data.map((t: any) => [t.id, t.title, t.is_done])).toEqual([[b.id, 'B', true], [a.id, 'A2', false]]);
    await expectRecords(api, 'tasks', updated.body.data);
    expect((await api.get(`/tasks?assignee_id=${user.id}`)).body.data).toEqual([]);
    const refused = await api.post('/tasks/batch', { inputs: [{ title: 'x', due_date: '2026-02-30' }, { title: 'y', owner_ids: ['nobody'], priority: 'asap' }] });
    expect([refused.status, refused.body.errors]).toEqual([
      422,
      {
        'inputs.0.due_date': ['The inputs.0.due_date field must be a valid date.'],
        'inputs.1.owner_ids': ['The selected inputs.1.owner_ids is invalid.'],
        'inputs.1.priority': ['The selected inputs.1.priority is invalid.'],
      },
    ]);
    expect(await total(api, '/tasks')).toBe(5);
  });
});
