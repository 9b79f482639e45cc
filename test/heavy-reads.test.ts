import { request as httpRequest } from 'node:http';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/db/ids.js';
import { type Client, type TestApp, newClient, startApp } from './support/app.js';

// API.md section 5: heavy reads never stall the server. An export goes page by page on
// connections of its own, and other requests are answered between its pages. What is
// asserted is what can be counted (answers between the export's chunks, the rows, the
// pages read), never a time: the figures are `npm run bench:heavy-reads`'s.

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const ROWS = 4_000;
/** The export's pages (src/rest/adapter.ts): the rows it reads a query beside requests on each database, and alone. */
const PAGE = { sqlite: 100, postgresql: 50, quiet: 500 } as const;

/** A workspace with `ROWS` contacts, inserted in bulk (4,000 POSTs would only slow the suite down). */
async function workspaceWithContacts(): Promise<{ api: Client; ids: string[] }> {
  const api = await newClient(app);
  const ids = Array.from({ length: ROWS }, () => newId());
  const rows = ids.map((id, i) => ({ id, workspaceId: api.workspaceId, firstName: `F${i}`, email: `f${i}@x.io`, properties: {}, search: `f${i}`, updatedAt: new Date() }));
  for (let i = 0; i < rows.length; i += 500) await (app.database.prisma as any).contact.createMany({ data: rows.slice(i, i + 500) });
  return { api, ids };
}

/** A GET whose body comes as it is sent: each chunk handed to `onChunk`; `abort` cuts the connection. */
function streamedGet(path: string, key: string, onChunk: (chunk: Buffer) => void) {
  let abort = () => {};
  const done = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(`${app.url}/api/v1${path}`, { headers: { 'X-Api-Key': key } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        onChunk(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    abort = () => req.destroy();
    req.end();
  });
  return { done, abort: () => abort() };
}

/** The export's page reads among the statements the service sent (its cursor's LIMIT, one more than a page). */
const isPageRead = (sql: string, params: string) => /FROM [`"]main[`"]\.[`"]Contact[`"]|FROM [`"]public[`"]\.[`"]Contact[`"]/.test(sql) && /\bLIMIT\b/i.test(sql) && [PAGE[app.provider], PAGE.quiet].some((size) => params.includes(`"${size + 1}"`) || params.includes(`,${size + 1},`));

describe('heavy reads beside short requests', () => {
  it('answers GET by id and /healthz while an export streams, between its chunks, and the export stays exact while writes happen', async () => {
    const { api, ids } = await workspaceWithContacts();
    const events: string[] = [];
    let exportDone = false;
    const exported = streamedGet('/contacts/export', api.key, () => events.push('chunk'));
    const finished = exported.done.finally(() => (exportDone = true));
    // While the export runs: one client reading and checking health, another writing.
    const created: string[] = [];
    const deleted: string[] = [];
    const reader = async () => {
      for (let i = 0; !exportDone; i += 1) {
        const byId = await api.get(`/contacts/${ids[i % 100]}`);
        expect(byId.status).toBe(200);
        events.push('answer');
        expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
        events.push('answer');
      }
    };
    const writer = async () => {
      for (let i = 0; !exportDone; i += 1) {
        const made = await api.post('/contacts', { first_name: 'New', email: `new-${newId()}@x.io` });
        expect(made.status).toBe(201);
        created.push(made.body.id);
        const victim = ids[ROWS - 1 - i]!;
        expect((await api.delete(`/contacts/${victim}`)).status).toBe(204);
        deleted.push(victim);
      }
    };
    await Promise.all([reader(), writer()]);
    const { status, text } = await finished;
    expect(status).toBe(200);
    // Answers came between the export's chunks, not all after its end.
    const between = events.slice(events.indexOf('chunk'), events.lastIndexOf('chunk')).filter((e) => e === 'answer').length;
    expect(between).toBeGreaterThanOrEqual(5);
    // Exact: every row that was there throughout once; a row written or deleted meanwhile at most once.
    const exportedIds = (parse(text) as string[][]).slice(1).map((r) => r[0]!);
    expect(new Set(exportedIds).size).toBe(exportedIds.length);
    const exportedSet = new Set(exportedIds);
    const untouched = ids.filter((id) => !deleted.includes(id));
    expect(untouched.filter((id) => !exportedSet.has(id))).toEqual([]);
    const allowed = new Set([...ids, ...created]);
    expect(exportedIds.filter((id) => !allowed.has(id))).toEqual([]);
    // In order (the list's order, by id), as it was before.
    expect(exportedIds).toEqual([...exportedIds].sort());
  });

  it('stops reading at once when the client goes away mid-export, and goes on serving', async () => {
    const { api } = await workspaceWithContacts();
    let pages = 0;
    app.database.onStatement((sql, params) => {
      if (isPageRead(sql, params)) pages += 1;
    });
    try {
      let firstChunk: () => void = () => {};
      const gotChunk = new Promise<void>((resolve) => (firstChunk = resolve));
      const exported = streamedGet('/contacts/export', api.key, () => firstChunk());
      exported.done.catch(() => {});
      await gotChunk;
      exported.abort();
      // Requests that need no statement, until the export's reads have stopped (its stream
      // cancelled): three rounds in a row without a page read. A live export reads between
      // them (nothing else is in flight then).
      let quietRounds = 0;
      for (let round = 0; quietRounds < 3 && round < 100; round += 1) {
        const before = pages;
        for (let i = 0; i < 5; i += 1) expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
        quietRounds = pages === before ? quietRounds + 1 : 0;
      }
      expect(quietRounds).toBe(3);
      expect(pages).toBeGreaterThanOrEqual(1);
      expect(pages).toBeLessThanOrEqual(6);
    } finally {
      app.database.onStatement(undefined);
    }
    expect((await api.get('/contacts?per_page=1')).status).toBe(200);
  });

  it('answers a search and a report read on the long reads\' connections, a write just before them included', async () => {
    const api = await newClient(app);
    const made = await api.post('/contacts', { first_name: 'Zebulon', email: `zeb-${newId()}@x.io` });
    expect(made.status).toBe(201);
    const [search, report, write] = await Promise.all([
      api.get('/search?q=zebulon&types=contacts'),
      api.get('/reports/payments?group_by=status'),
      api.post('/contacts', { first_name: 'Other', email: `o-${newId()}@x.io` }),
    ]);
    expect(search.status).toBe(200);
    expect(search.body.data.map((hit: { id: string }) => hit.id)).toEqual([made.body.id]);
    expect(report.status).toBe(200);
    expect(report.body).toEqual({ data: [] });
    expect(write.status).toBe(201);
  });
});
