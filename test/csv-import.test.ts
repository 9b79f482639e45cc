import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, type TestApp, newClient, send, startApp } from './support/app.js';
import { databaseUrl } from './support/file-database.js';
import { cli } from './support/cli.js';
import { noSuchWorkspace } from '../src/db/workspaces.js';
import { CLI, runCli } from './support/process.js';

// API.md section 8: `cli -- import <list> <file.csv> --workspace <name> [--dry-run] [--report <file>]`.

let app: TestApp;
const dir = mkdtempSync(join(tmpdir(), 'sg-import-'));
beforeAll(async () => {
  app = await startApp();
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn' });
const file = (name: string, text: string) => {
  const path = join(dir, `${Math.random().toString(36).slice(2)}-${name}`);
  writeFileSync(path, text);
  return path;
};
const workspaceOf = async (api: Client) => (await api.get('/workspace')).body.name as string;

async function importInto(api: Client, list: string, path: string, ...more: string[]) {
  return cli(['import', list, path, '--workspace', await workspaceOf(api), '--json', ...more], env());
}

async function exportText(api: Client, list: string) {
  const res = await send(`${app.url}/api/v1/${list}/export`, 'GET', { headers: { 'X-Api-Key': api.key } });
  expect(res.status).toBe(200);
  return res.text;
}

/** An export's rows as objects without the columns a new workspace cannot share (ids, times, links). */
const comparable = (csv: string) =>
  (parse(csv, { columns: true }) as Record<string, string>[]).map(({ id: _id, created_at: _c, updated_at: _u, company_ids: _l, contact_ids: _k, ...rest }) => rest);

describe('CSV import', () => {
  it('imports an export into another workspace and gives the same records, properties and formula guards included', async () => {
    const from = await newClient(app);
    const to = await newClient(app);
    for (const api of [from, to]) await api.post('/property-definitions', { object: 'contact', key: 'tier', label: 'Tier', type: 'enum', options: ['gold', 'silver'] });
    await from.post('/property-definitions', { object: 'contact', key: 'score', label: 'Score', type: 'number' });
    await to.post('/property-definitions', { object: 'contact', key: 'score', label: 'Score', type: 'number' });
    await from.post('/contacts', { first_name: 'Ada', last_name: 'Lovelace, "A"', email: 'ada@x.io', notes: 'two\nlines', properties: { tier: 'gold', score: 2.5 } });
    await from.post('/contacts', { first_name: '=cmd()', email: 'eve@x.io', properties: { score: -1 } });
    await from.post('/companies', { name: 'Acme', domain: 'acme.io', notes: '@home' });
    await from.post('/products', { name: 'Seat', sku: 'S-1', type: 'product', price: 9.5, cost: 2, currency: 'EUR', unit: 'seat', tax_rate: 20 });

    for (const list of ['contacts', 'companies', 'products']) {
      const exported = await exportText(from, list);
      const result = await importInto(to, list, file(`${list}.csv`, exported));
      expect({ list, code: result.code, stderr: result.stderr }).toMatchObject({ list, code: 0 });
      expect(JSON.parse(result.stdout)).toEqual({ created: comparable(exported).length, updated: 0, rejected: 0, skipped: 0 });
      expect(comparable(await exportText(to, list))).toEqual(comparable(exported));
    }
    // Each record written is an event, recorded as the command line's.
    const events = (await to.get('/events?type=contact.created')).body;
    expect(events.total).toBe(2);
    expect(events.data[0].actor).toEqual({ type: 'cli' });
  });

  it('upserts contacts by e-mail, companies by domain and products by sku; a column left out is left unchanged', async () => {
    const api = await newClient(app);
    const ada = (await api.post('/contacts', { first_name: 'Ada', last_name: 'Old', email: 'ada@x.io', notes: 'keep me' })).body;
    const acme = (await api.post('/companies', { name: 'Acme', domain: 'acme.io' })).body;
    const contacts = await importInto(api, 'contacts', file('c.csv', `first_name,last_name,email,company_ids\nAda,New,ADA@x.io,${acme.id}\nBob,,bob@x.io,\n`));
    expect(JSON.parse(contacts.stdout)).toEqual({ created: 1, updated: 1, rejected: 0, skipped: 0 });
    const updated = (await api.get(`/contacts/${ada.id}`)).body;
    expect(updated).toMatchObject({ last_name: 'New', notes: 'keep me' });
    expect((await api.graphql(`{ contact(id: "${ada.id}") { companyIds } }`)).body.data.contact.companyIds).toEqual([acme.id]);
    const companies = await importInto(api, 'companies', file('co.csv', 'name,domain\nAcme Inc,ACME.io\nNo Domain,\nNo Domain,\n'));
    expect(JSON.parse(companies.stdout)).toEqual({ created: 2, updated: 1, rejected: 0, skipped: 0 });
    expect((await api.get(`/companies/${acme.id}`)).body.name).toBe('Acme Inc');
    const products = await importInto(api, 'products', file('p.csv', 'name,sku,type,price,currency,unit\nSeat,S-1,product,10,USD,seat\nSeat v2,S-1,product,12,USD,seat\n'));
    expect(JSON.parse(products.stdout)).toMatchObject({ rejected: 0 });
    expect((await api.get('/products?search=S-1')).body.data.map((p: { name: string; price: number }) => [p.name, p.price])).toEqual([['Seat v2', 12]]);
  });

  it('updates one record named in consecutive transactions in file order (they wait for each other, not for ever)', async () => {
    const api = await newClient(app);
    const same = (await api.post('/contacts', { first_name: 'Same', last_name: 'Before', email: 'same@x.io' })).body;
    const lines = ['first_name,last_name,email'];
    for (let i = 0; i < 2_200; i++) lines.push(i % 1000 === 5 ? `Same,Row ${i},SAME@x.io` : `R${i},,r${i}@x.io`);
    const result = await importInto(api, 'contacts', file('same.csv', `${lines.join('\n')}\n`));
    expect(JSON.parse(result.stdout)).toEqual({ created: 2_197, updated: 3, rejected: 0, skipped: 0 });
    expect((await api.get(`/contacts/${same.id}`)).body.last_name).toBe('Row 2005');
    expect((await api.get('/contacts')).body.total).toBe(2_198);
  });

  it('skips a row that breaks a rule, reports it with its line number and reasons, and exits 1', async () => {
    const api = await newClient(app);
    const report = join(dir, `report-${Math.random()}.csv`);
    const text = 'first_name,email,notes\nGood,good@x.io,"multi\nline"\n,missing@x.io,\nBad,not-an-email,\nAlso good,also@x.io,\nShort\n';
    // The command line's own process: its exit status and stdout, as a script sees them.
    const result = await runCli(['import', 'contacts', file('bad.csv', text), '--workspace', await workspaceOf(api), '--json', '--report', report], env());
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({ created: 2, updated: 0, rejected: 3, skipped: 0 });
    expect(parse(readFileSync(report, 'utf8'))).toEqual([
      ['line', 'reasons', 'first_name', 'email', 'notes'],
      ['4', 'The first name field is required.', '', 'missing@x.io', ''],
      ['5', 'The email field must be a valid email address.', 'Bad', 'not-an-email', ''],
      ['7', 'The row has 1 cells; the header has 3.', 'Short', '', ''],
    ]);
    expect((await api.get('/contacts')).body.data.map((c: { email: string }) => c.email)).toEqual(['good@x.io', 'also@x.io']);
  });

  it('reads the rows an earlier run rejected again on a rerun: rejected again (exit 1), or taken once the data allows them', async () => {
    const api = await newClient(app);
    await api.post('/property-definitions', { object: 'contact', key: 'tier', label: 'Tier', type: 'enum', options: ['gold'] });
    // Rejected rows in the first transaction (rows 3 and 900), the second (1,500) and the last one (2,100).
    const rejected = new Set([3, 900, 1_500, 2_100]);
    const lines = ['first_name,email,properties.tier'];
    for (let i = 1; i <= 2_100; i++) lines.push(`R${i},r${i}@x.io,${rejected.has(i) ? 'bronze' : 'gold'}`);
    const path = file('rejects.csv', `${lines.join('\n')}\n`);
    const report = () => join(dir, `report-${Math.random()}.csv`);

    const first = await importInto(api, 'contacts', path);
    expect(first.code).toBe(1);
    expect(JSON.parse(first.stdout)).toEqual({ created: 2_096, updated: 0, rejected: 4, skipped: 0 });

    // The same file again: the committed rows are skipped, the rejected ones read and rejected again.
    const againReport = report();
    const again = await importInto(api, 'contacts', path, '--report', againReport);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({ created: 0, updated: 0, rejected: 4, skipped: 2_096 });
    expect(parse(readFileSync(againReport, 'utf8')).map((r: string[]) => r.slice(0, 3))).toEqual([
      ['line', 'reasons', 'first_name'],
      ...[...rejected].map((n) => [String(n + 1), 'The selected properties.tier is invalid.', `R${n}`]),
    ]);
    // A third run finds the same four: the second run's checkpoint kept them.
    expect(JSON.parse((await importInto(api, 'contacts', path)).stdout)).toEqual({ created: 0, updated: 0, rejected: 4, skipped: 2_096 });

    // Once the rule allows them, a rerun takes exactly those rows, and then there is nothing left to take.
    const tier = (await api.get('/property-definitions')).body.data.find((d: { key: string }) => d.key === 'tier');
    expect((await api.put(`/property-definitions/${tier.id}`, { options: ['gold', 'bronze'] })).status).toBe(200);
    const taken = await importInto(api, 'contacts', path);
    expect({ code: taken.code, summary: JSON.parse(taken.stdout) }).toEqual({ code: 0, summary: { created: 4, updated: 0, rejected: 0, skipped: 2_096 } });
    expect(JSON.parse((await importInto(api, 'contacts', path)).stdout)).toEqual({ created: 0, updated: 0, rejected: 0, skipped: 2_100 });
    expect((await api.get('/contacts')).body.total).toBe(2_100);
    expect((await api.get('/events?type=contact.created')).body.total).toBe(2_100);
  });

  it('refuses unknown columns and an unreadable file before writing anything (exit 2), and writes nothing on --dry-run', async () => {
    const api = await newClient(app);
    const unknown = await importInto(api, 'contacts', file('u.csv', 'first_name,email,shoe_size\nAda,ada@x.io,42\n'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown columns: shoe_size');
    expect((await importInto(api, 'contacts', join(dir, 'missing.csv'))).code).toBe(2);
    expect((await importInto(api, 'contacts', file('q.csv', 'first_name,email\n"Ada,ada@x.io\n'))).code).toBe(2);
    expect((await cli(['import', 'tickets', 'x.csv', '--workspace', 'w'], env())).code).toBe(2);
    const dry = await importInto(api, 'contacts', file('d.csv', 'first_name,email\nAda,ada@x.io\nBad,nope\n'), '--dry-run');
    expect(dry.code).toBe(1);
    expect(JSON.parse(dry.stdout)).toEqual({ created: 1, updated: 0, rejected: 1, skipped: 0 });
    expect((await api.get('/contacts')).body.total).toBe(0);
    expect((await api.get('/events')).body.total).toBe(0);
  });

  it('imports deals (created, linked by stage external id and user id) and resumes an interrupted import without duplicates', async () => {
    const api = await newClient(app);
    const user = (await api.post('/users', { name: 'Owner', email: 'o@x.io' })).body;
    const pipeline = (await api.post('/pipelines', { name: 'P', stages: [{ name: 'Lead' }] })).body;
    const rows = 3_500;
    const lines = ['name,estimated_value,stage.external_id,user.id,stage.name'];
    for (let i = 0; i < rows; i++) lines.push(`Deal ${i},${i},${pipeline.stages[0].external_id},${user.id},Lead`);
    const path = file('deals.csv', `${lines.join('\n')}\n`);
    const workspace = await workspaceOf(api);

    // Killed (SIGKILL) once its first transaction has committed, then run again.
    const child = spawn(process.execPath, [CLI, 'import', 'deals', path, '--workspace', workspace], { env: { ...process.env, ...env() }, stdio: 'ignore' });
    const exited = once(child, 'exit');
    const prisma = app.database.prisma as any;
    // Looked for every 10 ms: a loop without a pause took a core from the import it waits for.
    for (;;) {
      const done = await prisma.importCheckpoint.findFirst({ where: { workspaceId: api.workspaceId }, select: { rowsDone: true } });
      if (done || child.exitCode !== null) break;
      await sleep(10);
    }
    child.kill('SIGKILL');
    await exited;
    const before = (await api.get('/deals')).body.total;
    expect(before).toBeGreaterThanOrEqual(1000);
    expect(before).toBeLessThan(rows);
    expect(before % 1000).toBe(0);

    const rerun = await cli(['import', 'deals', path, '--workspace', workspace, '--json'], env());
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout)).toEqual({ created: rows - before, updated: 0, rejected: 0, skipped: before });
    const names = new Set<string>();
    let cursor = '';
    do {
      const page = (await api.get(`/deals?per_page=100&cursor=${cursor}`)).body;
      for (const d of page.data) names.add(d.name);
      cursor = page.next_cursor;
    } while (cursor);
    expect(names.size).toBe(rows);
    expect((await api.get('/deals')).body.total).toBe(rows);
  });
});

// The command line's usage and refusals read little of the database: once, on the embedded default.
describe.runIf(process.env.TEST_PROVIDER !== 'postgresql')('the command line, for a newcomer', () => {
  const workspaces = () => (app.database.prisma as any).workspace.count() as Promise<number>;

  it('prints its usage with --help, for every command, and exits 0; an unknown option is exit 2 with the usage', async () => {
    const all = await cli(['--help'], env());
    expect([all.code, all.stderr]).toEqual([0, '']);
    for (const command of ['keys create', 'keys list', 'keys revoke', 'workspaces show', 'workspaces set', 'demo', 'import', 'migrate']) {
      expect(all.stdout).toContain(`  ${command}`);
      const one = await cli([...command.split(' '), '--help'], env());
      expect({ command, code: one.code, first: one.stdout.split('\n')[0] }).toEqual({ command, code: 0, first: expect.stringMatching(new RegExp(`^Usage: npm run --silent cli -- ${command}\\b`)) });
    }
    const wrong = await cli(['keys', 'list', '--workspace', 'x', '--colour', 'red'], env());
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^Unknown option '--colour'[\s\S]*Usage: npm run --silent cli -- keys list --workspace <name>/);
  });

  it('refuses a workspace that does not exist (exit 2), naming it, and makes nothing: keys list, workspaces show, import', async () => {
    const before = await workspaces();
    const name = `nosuch-${Math.random().toString(36).slice(2)}`;
    const report = join(dir, `report-${name}.csv`);
    const path = file('plain.csv', 'first_name,email\r\nAda,ada@x.io\r\n');
    for (const args of [['keys', 'list', '--workspace', name], ['workspaces', 'show', name], ['import', 'contacts', path, '--workspace', name, '--report', report]]) {
      const result = await cli(args, env());
      expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr.trim().split('\n').at(-1) }).toEqual({ args, code: 2, stdout: '', stderr: expect.stringContaining(noSuchWorkspace(name)) });
    }
    expect(await workspaces()).toBe(before);
    expect(existsSync(report)).toBe(false);
  });

  it('writes the report only when rows were rejected: none for a file refused whole or a run that takes every row', async () => {
    const api = await newClient(app);
    const refused = join(dir, `refused-${Math.random()}.csv`);
    const bad = await importInto(api, 'contacts', file('unknown.csv', 'first_name,email,colour\r\nAda,ada@x.io,red\r\n'), '--report', refused);
    expect(bad.code).toBe(2);
    const clean = join(dir, `clean-${Math.random()}.csv`);
    const good = await importInto(api, 'contacts', file('good.csv', 'first_name,email\r\nAda,ada@x.io\r\n'), '--report', clean);
    expect(good.code).toBe(0);
    expect([existsSync(refused), existsSync(clean)]).toEqual([false, false]);
  });
});
