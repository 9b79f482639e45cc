import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, countStatements, newClient, startApp } from './support/app.js';

const TASK_FIELDS = ['id', 'title', 'description', 'due_date', 'is_done', 'priority', 'position', 'created_at', 'updated_at'].sort();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

async function user(api: Client, name: string) {
  const res = await api.post('/users', { name, email: `${name.toLowerCase()}@example.com` });
  expect(res.status).toBe(201);
  return res.body;
}

/** A task's owners and assignees, as GraphQL shows them. */
async function people(api: Client, id: string) {
  const res = await api.graphql('query($id: ID!) { task(id: $id) { owners { id } assignees { id } } }', { id });
  expect(res.body.errors).toBeUndefined();
  const task = res.body.data.task;
  return { owners: task.owners.map((u: any) => u.id), assignees: task.assignees.map((u: any) => u.id) };
}

describe('tasks', () => {
  it('creates with defaults and returns exactly the specified fields', async () => {
    const api = await newClient(app);
    const res = await api.post('/tasks', { title: '  Call back  ' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(TASK_FIELDS);
    expect(res.body).toMatchObject({ title: 'Call back', description: null, due_date: null, is_done: false, priority: 'normal', position: 1 });
    expect(res.body.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(res.body.created_at).toMatch(ISO);
    expect(res.body.updated_at).toMatch(ISO);
    const again = await api.get(`/tasks/${res.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  it('stores every field, connects owners and assignees, and ignores unknown and response-only fields', async () => {
    const api = await newClient(app);
    const [ann, bob] = [await user(api, 'Ann'), await user(api, 'Bob')];
    const res = await api.post('/tasks', {
      title: 'Prepare offer',
      description: 'Long text',
      due_date: '2028-02-29',
      is_done: true,
      priority: 'urgent',
      owner_ids: [bob.id, ann.id, bob.id],
      assignee_ids: [ann.id],
      position: 99,
      id: 'mine',
      whatever: 1,
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(TASK_FIELDS);
    expect(res.body).toMatchObject({ title: 'Prepare offer', description: 'Long text', due_date: '2028-02-29', is_done: true, priority: 'urgent', position: 1 });
    expect(res.body.id).not.toBe('mine');
    // Duplicates collapse; owners read in id order.
    expect(await people(api, res.body.id)).toEqual({ owners: [ann.id, bob.id].sort(), assignees: [ann.id] });
  });

  it('takes every calendar date of years 0001 to 9999, as Laravel\'s date rule does, and refuses year 0000 and February 29 of a common year', async () => {
    const api = await newClient(app);
    for (const dueDate of ['0001-01-01', '0050-06-15', '0099-12-31', '1900-02-28', '2000-02-29', '9999-12-31']) {
      const res = await api.post('/tasks', { title: `Due ${dueDate}`, due_date: dueDate });
      expect([dueDate, res.status, res.body.due_date]).toEqual([dueDate, 201, dueDate]);
      expect((await api.get(`/tasks/${res.body.id}`)).body.due_date).toBe(dueDate);
    }
    for (const dueDate of ['0000-01-01', '1900-02-29', '0050-02-29', '2026-13-01', '2026-00-10']) {
      const res = await api.post('/tasks', { title: 'Never', due_date: dueDate });
      expect([dueDate, res.status, res.body.errors]).toEqual([dueDate, 422, { due_date: ['The due date field must be a valid date.'] }]);
    }
  });

  it('reports every invalid field, wrong JSON types and unknown users included, and creates nothing', async () => {
    const api = await newClient(app);
    const other = await newClient(app);
    const stranger = await user(other, 'Stranger');
    const res = await api.post('/tasks', {
      title: '',
      description: 5,
      due_date: '2026-02-30',
      is_done: 'yes',
      priority: 'someday',
      owner_ids: ['nope'],
      assignee_ids: [stranger.id],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The given data was invalid.',
      errors: {
        title: ['The title field is required.'],
        description: ['The description field must be a string.'],
        due_date: ['The due date field must be a valid date.'],
        is_done: ['The is done field must be true or false.'],
        priority: ['The selected priority is invalid.'],
        owner_ids: ['The selected owner ids is invalid.'],
        assignee_ids: ['The selected assignee ids is invalid.'],
      },
    });
    expect((await api.post('/tasks', {})).body).toEqual({ message: 'The given data was invalid.', errors: { title: ['The title field is required.'] } });
    expect((await api.post('/tasks', { title: 'x'.repeat(256), due_date: '2026-1-5', owner_ids: 'a' })).body.errors).toEqual({
      title: ['The title field must not be greater than 255 characters.'],
      due_date: ['The due date field must be a valid date.'],
      owner_ids: ['The owner ids field must be an array.'],
    });
    expect((await api.get('/tasks')).body.total).toBe(0);
  });

  it('updates partially, clears nullable fields with null, and replaces id sets only when sent', async () => {
    const api = await newClient(app);
    const [ann, bob, cy] = [await user(api, 'Ann'), await user(api, 'Bob'), await user(api, 'Cy')];
    const created = (await api.post('/tasks', { title: 'T', description: 'D', due_date: '2026-05-01', priority: 'high', owner_ids: [ann.id, bob.id], assignee_ids: [cy.id] })).body;
    const res = await api.put(`/tasks/${created.id}`, { ...created, description: null, due_date: null, is_done: true, position: 50, created_at: 'x', id: 'other' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, title: 'T', description: null, due_date: null, is_done: true, priority: 'high', position: created.position, created_at: created.created_at });
    expect(await people(api, created.id)).toEqual({ owners: [ann.id, bob.id], assignees: [cy.id] });

    const partial = await api.put(`/tasks/${created.id}`, { priority: 'low', owner_ids: [cy.id, cy.id] });
    expect(partial.body).toMatchObject({ title: 'T', is_done: true, priority: 'low' });
    expect(await people(api, created.id)).toEqual({ owners: [cy.id], assignees: [cy.id] });

    expect((await api.put(`/tasks/${created.id}`, { assignee_ids: [] })).status).toBe(200);
    expect(await people(api, created.id)).toEqual({ owners: [cy.id], assignees: [] });
  });

  it('refuses a bad update whole and changes nothing', async () => {
    const api = await newClient(app);
    const ann = await user(api, 'Ann');
    const created = (await api.post('/tasks', { title: 'T', owner_ids: [ann.id], assignee_ids: [ann.id] })).body;
    const res = await api.put(`/tasks/${created.id}`, { title: null, is_done: false, priority: 'HIGH', owner_ids: [], assignee_ids: [ann.id, 'missing'] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      title: ['The title field is required.'],
      priority: ['The selected priority is invalid.'],
      assignee_ids: ['The selected assignee ids is invalid.'],
    });
    expect((await api.get(`/tasks/${created.id}`)).body).toEqual(created);
    expect(await people(api, created.id)).toEqual({ owners: [ann.id], assignees: [ann.id] });
  });

  it('puts new tasks last and lists by position, then id, with filters', async () => {
    const api = await newClient(app);
    const [ann, bob] = [await user(api, 'Ann'), await user(api, 'Bob')];
    const a = (await api.post('/tasks', { title: 'A', assignee_ids: [ann.id] })).body;
    const b = (await api.post('/tasks', { title: 'B', is_done: true, assignee_ids: [ann.id, bob.id] })).body;
    const c = (await api.post('/tasks', { title: 'C' })).body;
    expect([a.position, b.position, c.position]).toEqual([1, 2, 3]);
    // Deleting a task moves no other; the next one still goes after the last.
    await api.delete(`/tasks/${a.id}`);
    const d = (await api.post('/tasks', { title: 'D', is_done: true })).body;
    expect(d.position).toBe(4);
    const list = await api.get('/tasks');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ current_page: 1, per_page: 15, total: 3, last_page: 1 });
    expect(list.body.data.map((t: any) => t.title)).toEqual(['B', 'C', 'D']);
    expect(Object.keys(list.body.data[0]).sort()).toEqual(TASK_FIELDS);
    expect((await api.get('/tasks?page=2&per_page=2')).body).toMatchObject({ current_page: 2, per_page: 2, total: 3, last_page: 2, data: [{ title: 'D' }] });
    expect((await api.get('/tasks?is_done=true')).body.data.map((t: any) => t.title)).toEqual(['B', 'D']);
    expect((await api.get('/tasks?is_done=0')).body.data.map((t: any) => t.title)).toEqual(['C']);
    expect((await api.get(`/tasks?assignee_id=${bob.id}`)).body.data.map((t: any) => t.title)).toEqual(['B']);
    expect((await api.get(`/tasks?assignee_id=${ann.id}&is_done=false`)).body.total).toBe(0);
    expect((await api.get('/tasks?assignee_id=nobody')).body).toMatchObject({ total: 0, data: [] });
  });

  it('orders tasks sharing a position by id', async () => {
    const api = await newClient(app);
    const first = (await api.post('/tasks', { title: 'First' })).body;
    const second = (await api.post('/tasks', { title: 'Second' })).body;
    // Creates lock the workspace, so the API never writes a tie (test/concurrency.test.ts);
    // rows stored before that rule may still tie: simulate one.
    await app.database.prisma.task.update({ where: { id: second.id }, data: { position: first.position } });
    const third = (await api.post('/tasks', { title: 'Third' })).body;
    expect(third.position).toBe(first.position + 1);
    expect((await api.get('/tasks')).body.data.map((t: any) => t.title)).toEqual(['First', 'Second', 'Third']);
  });

  it('refuses bad list parameters with 422', async () => {
    const api = await newClient(app);
    expect((await api.get('/tasks?is_done=maybe')).body).toEqual({ message: 'The given data was invalid.', errors: { is_done: ['The is done field must be true or false.'] } });
    expect((await api.get('/tasks?per_page=0&colour=red')).body.errors).toEqual({
      per_page: ['The per page field must be at least 1.'],
      colour: ['The colour parameter is not supported.'],
    });
  });

  it('answers 404 for unknown ids and for other workspaces', async () => {
    const api = await newClient(app);
    const other = await newClient(app);
    const created = (await api.post('/tasks', { title: 'Mine' })).body;
    for (const res of [
      await other.get(`/tasks/${created.id}`),
      await other.put(`/tasks/${created.id}`, { title: 'x' }),
      await other.delete(`/tasks/${created.id}`),
      await api.get('/tasks/01ARZ3NDEKTSV4RRFFQ69G5FAV'),
      await api.put('/tasks/01ARZ3NDEKTSV4RRFFQ69G5FAV', { title: 'x' }),
      await api.delete('/tasks/01ARZ3NDEKTSV4RRFFQ69G5FAV'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Task not found.' });
    }
    expect((await api.get(`/tasks/${created.id}`)).body).toEqual(created);
  });

  it('deletes with 204', async () => {
    const api = await newClient(app);
    const ann = await user(api, 'Ann');
    const created = (await api.post('/tasks', { title: 'Gone', owner_ids: [ann.id] })).body;
    const res = await api.delete(`/tasks/${created.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect((await api.get(`/tasks/${created.id}`)).status).toBe(404);
    expect((await api.get(`/users/${ann.id}`)).status).toBe(200);
  });

  it('keeps a task when one of its users is deleted, without that user', async () => {
    const api = await newClient(app);
    const [ann, bob] = [await user(api, 'Ann'), await user(api, 'Bob')];
    const created = (await api.post('/tasks', { title: 'T', owner_ids: [ann.id, bob.id], assignee_ids: [ann.id] })).body;
    expect((await api.delete(`/users/${ann.id}`)).status).toBe(204);
    expect((await api.get(`/tasks/${created.id}`)).body).toEqual(created);
    expect(await people(api, created.id)).toEqual({ owners: [bob.id], assignees: [] });
  });

  it('shows owners and assignees both ways over GraphQL', async () => {
    const api = await newClient(app);
    const [ann, bob] = [await user(api, 'Ann'), await user(api, 'Bob')];
    const t1 = (await api.post('/tasks', { title: 'T1', owner_ids: [ann.id], assignee_ids: [bob.id] })).body;
    const t2 = (await api.post('/tasks', { title: 'T2', owner_ids: [ann.id, bob.id] })).body;
    const res = await api.graphql(
      'query($a: ID!, $b: ID!) { a: user(id: $a) { ownedTasks { id } assignedTasks { id } } b: user(id: $b) { ownedTasks { id } assignedTasks { id } } }',
      { a: ann.id, b: bob.id },
    );
    expect(res.body.data).toEqual({
      a: { ownedTasks: [{ id: t1.id }, { id: t2.id }], assignedTasks: [] },
      b: { ownedTasks: [{ id: t2.id }], assignedTasks: [{ id: t1.id }] },
    });
    const task = await api.graphql('query($id: ID!) { task(id: $id) { title priority dueDate owners { name } assignees { name ownedTasks { title } } } }', { id: t1.id });
    expect(task.body.data.task).toEqual({ title: 'T1', priority: 'normal', dueDate: null, owners: [{ name: 'Ann' }], assignees: [{ name: 'Bob', ownedTasks: [{ title: 'T2' }] }] });
  });

  it('serves the same rules over GraphQL', async () => {
    const api = await newClient(app);
    const bad = await api.graphql('mutation { createTask(input: { title: " ", ownerIds: ["nope"] }) { id } }');
    expect(bad.status).toBe(200);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: { title: ['The title field is required.'], owner_ids: ['The selected owner ids is invalid.'] } });
    const ok = await api.graphql('mutation($i: CreateTaskInput!) { createTask(input: $i) { id title priority isDone dueDate position } }', { i: { title: 'G', priority: 'high', dueDate: '2026-12-31' } });
    expect(ok.body.data.createTask).toMatchObject({ title: 'G', priority: 'high', isDone: false, dueDate: '2026-12-31', position: 1 });
    const list = await api.graphql('{ tasks(filter: { isDone: false }) { total data { title } } }');
    expect(list.body.data.tasks).toEqual({ total: 1, data: [{ title: 'G' }] });
    const missing = await api.graphql('query { task(id: "nope") { id } }');
    expect(missing.body.errors[0]).toMatchObject({ message: 'Task not found.', extensions: { code: 'NOT_FOUND' } });
  });

  it('reads a page of tasks with owners and assignees in a fixed number of SQL statements', async () => {
    const api = await newClient(app);
    const [ann, bob] = [await user(api, 'Ann'), await user(api, 'Bob')];
    for (let i = 0; i < 20; i++) await api.post('/tasks', { title: `T${i}`, owner_ids: [ann.id], assignee_ids: [bob.id] });
    const query = (n: number) => `{ tasks(perPage: ${n}) { data { id owners(perPage: 5) { name ownedTasks(perPage: 20) { id } } assignees { name } } } }`;
    let reply: any;
    const many = await countStatements(app, async () => {
      reply = await api.graphql(query(20));
    });
    expect(reply.body.data.tasks.data).toHaveLength(20);
    expect(reply.body.data.tasks.data[19]).toMatchObject({ owners: [{ name: 'Ann' }], assignees: [{ name: 'Bob' }] });
    expect(await countStatements(app, () => api.graphql(query(2)))).toBe(many);
  });
});
