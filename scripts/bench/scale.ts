// npm run bench:scale -- --database postgresql://postgres@127.0.0.1:5432/postgres [--rows 1000000] [--requests 200] [--only reports:]
// npm run bench:scale -- --database sqlite [--rows 1000000]
//
// Loads one workspace of a scratch database (PostgreSQL, or a SQLite file) with --rows contacts, deals and
// payment transactions (one event each) in bulk SQL (generate_series, not the API),
// starts the service on it and measures, one request at a time from this process, the
// p50/p95 latency of every list's first page, a deep page, each filter, the searches and
// the contact upsert (--only: the lines whose label contains one of its comma-separated
// parts). Prints a Markdown table, then the plan PostgreSQL chose for each
// list query (EXPLAIN of the SQL the service sent, captured from Prisma's query events).
import { availableParallelism, cpus } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createKey } from '../../src/auth/api-keys.js';
import { POSTGRES_SESSION_OPTIONS, openDatabase } from '../../src/db/client.js';
import { resolveDatabase } from '../../src/db/database-url.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { scratchDatabase } from '../../test/support/scratch-database.js';
import { listen } from '../../src/serve.js';
import { composeService } from '../../src/service.js';
import { openSqliteFile } from '../../src/db/sqlite-adapter.js';
import { encodeCursor } from '../../src/graphql/cursors.js';
import { parseSort, sortText } from '../../src/graphql/sorting.js';
import { CONTACT_LIST } from '../../src/modules/contacts/contacts.input.js';
import { DEAL_LIST } from '../../src/modules/deals/deals.input.js';
import { PAYMENT_TRANSACTION_LIST } from '../../src/modules/payment-transactions/payment-transactions.input.js';
import { percentile } from './load.js';
import { buildService, startServer } from './processes.js';

const progress = (line: string) => process.stderr.write(`${line}\n`);
const { values } = parseArgs({
  options: {
    database: { type: 'string' },
    rows: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '200' },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const SQLITE = values.database === 'sqlite';
if (!SQLITE && !values.database?.startsWith('postgres')) throw new Error('--database must be a postgresql:// admin URL (a scratch database is made in it), or sqlite');
const ROWS = Number(values.rows);
const REQUESTS = Number(values.requests);
if (!Number.isInteger(ROWS) || ROWS < 1000) throw new Error('--rows must be a whole number from 1000');
if (!Number.isInteger(REQUESTS) || REQUESTS < 10) throw new Error('--requests must be a whole number from 10');
/** Seconds between two transactions' times, so that they span three years whatever --rows. */
const TRANSACTION_SPACING_SECONDS = Math.max(1, Math.floor((3 * 365 * 86_400) / ROWS));

const scratch = await scratchDatabase(SQLITE ? 'sqlite' : 'postgresql', values.database!, 'scale');
const target = resolveDatabase(scratch.url);
const sql = SQLITE ? sqliteClient(scratch.url) : postgresClient(scratch.url);
let stopService: (() => Promise<void>) | undefined;

try {
  await applyMigrations(target);
  await sql.connect();
  const { key, workspaceId } = await (async () => {
    const database = await openDatabase(target);
    try {
      return await createKey(database.prisma, 'scale', 'scale benchmark');
    } finally {
      await database.close();
    }
  })();

  const started = performance.now();
  await (SQLITE ? loadSqlite : load)(sql, workspaceId, ROWS);
  progress(`loaded ${ROWS.toLocaleString('en-US')} contacts, deals and payment transactions with one event each in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  await sql.query(SQLITE ? 'ANALYZE' : 'VACUUM ANALYZE');

  const serviceScript = buildService();
  const service = await startServer('service', serviceScript, { DATABASE_URL: scratch.url, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn', MIGRATE_ON_START: 'false' });
  stopService = () => service.stop();
  const fixtures = (await sql.query(`SELECT (SELECT "id" FROM "Pipeline" LIMIT 1) AS pipeline, (SELECT "externalId" FROM "DealStage" ORDER BY "order" LIMIT 1) AS stage`)).rows[0];
  const middle = Math.floor(ROWS / 2);
  // A whole month of the transactions' three years (UTC): six months back.
  const today = new Date();
  const monthAgo = {
    from: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 6, 1)).toISOString().slice(0, 10),
    to: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 5, 0)).toISOString().slice(0, 10),
  };
  // Deals were created one a second up to the load: half a day's worth back, mid-day (UTC), and that day's midnight.
  const createdSince = new Date(Date.now() - Math.min(ROWS / 2, 5.5 * 86_400) * 1000);
  const createdSinceMidnight = new Date(Date.UTC(createdSince.getUTCFullYear(), createdSince.getUTCMonth(), createdSince.getUTCDate()));
  const deepPage = Math.floor(ROWS / 15 / 2);
  const allCases: Case[] = [
    ['contacts: page 1', '/contacts'],
    [`contacts: page ${deepPage.toLocaleString('en-US')} (the middle)`, `/contacts?page=${deepPage}`],
    ['contacts: `email` filter', `/contacts?email=contact${middle}@example.com`],
    ['contacts: `search`, one match', `/contacts?search=contact${middle}@`],
    ['contacts: `search`, many matches', '/contacts?search=first%2012'],
    ['contacts: upsert (an existing email)', '/contacts/upsert', { first_name: 'First', last_name: 'Upserted', email: `contact${middle}@example.com` }],
    ['deals: page 1', '/deals'],
    [`deals: page ${deepPage.toLocaleString('en-US')}`, `/deals?page=${deepPage}`],
    ['deals: `pipeline_id` filter', `/deals?pipeline_id=${fixtures.pipeline}`],
    ['deals: `deal_stage_external_id` filter', `/deals?deal_stage_external_id=${fixtures.stage}`],
    ['transactions: page 1', '/payment-transactions'],
    [`transactions: page ${deepPage.toLocaleString('en-US')}`, `/payment-transactions?page=${deepPage}`],
    ['transactions: `status` filter (1 in 6)', '/payment-transactions?status=refunded'],
    ['transactions: `search` by reference, one match', `/payment-transactions?search=ref-${middle}x`],
    ['transactions: `search` by link name', '/payment-transactions?search=link%207'],
    ...(await cursorCases(sql, middle, ROWS)),
    // Search (API.md section 10) over the contacts' and deals' entries.
    ['search: an e-mail, one match', `/search?q=contact${middle}@example.com`],
    ['search: two words, a name (few matches)', `/search?q=first%20${middle}`],
    ['search: a prefix, deals only (11 matches)', `/search?q=deal%20${Math.floor(middle / 10)}&types=deals`],
    ['search: one common word (every contact matches)', '/search?q=last'],
    // Reports (API.md section 10) over every deal and transaction.
    ['reports: pipeline by stage', '/reports/pipeline'],
    ['reports: pipeline by owner', '/reports/pipeline?group_by=user'],
    ['reports: pipeline by close month, one year', '/reports/pipeline?group_by=expected_close_month&expected_close_from=2026-01-01&expected_close_to=2026-12-31'],
    ['reports: pipeline by stage, `created_since` (GROUP BY)', '/reports/pipeline?created_since=2000-01-01T00:00:00Z'],
    ['reports: pipeline by stage, close dates inside months', '/reports/pipeline?expected_close_from=2025-03-15&expected_close_to=2026-09-10'],
    ['reports: pipeline by close month, close dates inside months', '/reports/pipeline?group_by=expected_close_month&expected_close_from=2025-03-15&expected_close_to=2026-09-10'],
    ['reports: pipeline by owner, `created_since` mid-day', `/reports/pipeline?group_by=user&created_since=${encodeURIComponent(createdSince.toISOString())}`],
    ['reports: pipeline by stage, `created_since` a midnight', `/reports/pipeline?created_since=${encodeURIComponent(createdSinceMidnight.toISOString())}`],
    ['reports: pipeline by close month, `created_since` mid-day', `/reports/pipeline?group_by=expected_close_month&created_since=${encodeURIComponent(createdSince.toISOString())}`],
    ['reports: pipeline by owner, `created_since` mid-day, close dates inside months', `/reports/pipeline?group_by=user&created_since=${encodeURIComponent(createdSince.toISOString())}&expected_close_from=2025-03-15&expected_close_to=2026-09-10`],
    ['reports: payments by month', '/reports/payments'],
    ['reports: payments by status', '/reports/payments?group_by=status'],
    ['reports: payments by day, paid, one month', `/reports/payments?group_by=day&status=paid&from=${monthAgo.from}&to=${monthAgo.to}`],
    ['reports: payments by link', '/reports/payments?group_by=payment_link'],
    ['reports: payments by link, `from` (GROUP BY)', '/reports/payments?group_by=payment_link&from=2000-01-01'],
    ['reports: payments by link, one month', `/reports/payments?group_by=payment_link&from=${monthAgo.from}&to=${monthAgo.to}`],
  ];
  const only = values.only?.split(',');
  const cases = only ? allCases.filter(([label]) => only.some((part) => label.includes(part))) : allCases;

  const rows: string[] = [];
  for (const [label, path, body] of cases) {
    const timings = await timeRequests(service.url, key, path, body);
    rows.push(`| ${label} | ${ms(percentile(timings, 50))} | ${ms(percentile(timings, 95))} |`);
    progress(`${label}: p50 ${ms(percentile(timings, 50))} ms, p95 ${ms(percentile(timings, 95))} ms`);
  }
  await service.stop();
  stopService = undefined;
  const plans = SQLITE ? [] : await explainPlans(key, cases);
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  process.stdout.write(
    [
      `## ${ROWS.toLocaleString('en-US')} rows per list on ${SQLITE ? 'SQLite' : 'PostgreSQL'}`,
      '',
      `One workspace: ${ROWS.toLocaleString('en-US')} contacts, deals (5 stages, 10 users, closing over 2025-2026) and payment transactions (20 links, over three years, one event each). ` +
        `${REQUESTS} requests per line, one at a time, after 10 unmeasured; latency from sending to the whole answer, seen by the client. ` +
        `${SQLITE ? `SQLite ${(await sql.query('SELECT sqlite_version() AS v')).rows[0].v}` : `PostgreSQL ${(await sql.query('SHOW server_version')).rows[0].server_version.split(' ')[0]}`}, Node ${process.version}, ${availableParallelism()} × ${cpu}.`,
      '',
      '| request (REST, 15 per page) | p50 ms | p95 ms |',
      '| --- | ---: | ---: |',
      ...rows,
      '',
      ...(plans.length ? ['### Plans', '', ...plans] : []),
    ].join('\n'),
  );
} finally {
  await stopService?.();
  await sql.end().catch(() => {});
  if (values.keep) progress(`kept ${scratch.url}`);
  else await scratch.drop();
}

type Case = [label: string, path: string, body?: object];

/** A workspace's own word in the search index (src/search/documents.ts's `workspaceWord`; a record's words follow it behind an `x`, its `indexWord`, and the rank's tokens, `headWord` and `wholeWord`). */
function searchWord(workspaceId: string): string {
  return `w${workspaceId.toLowerCase()}`;
}


/** The loader's connection: `query` with PostgreSQL's `$1` placeholders on both. */
interface Sql {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
  end(): Promise<void>;
  pg?: pg.Client;
}

function postgresClient(url: string): Sql {
  // Planned with the service's own session settings, so the plans shown are the ones it gets.
  const client = new pg.Client({ connectionString: url, options: POSTGRES_SESSION_OPTIONS });
  return { connect: async () => void (await client.connect()), query: (text, values) => client.query(text, values), end: () => client.end(), pg: client };
}

function sqliteClient(url: string): Sql {
  let db: ReturnType<typeof openSqliteFile> | undefined;
  return {
    connect: async () => {
      db = openSqliteFile(url.slice('file:'.length));
    },
    query: async (text, values = []) => {
      const statement = db!.prepare(text.replace(/\$\d+/g, '?'));
      return { rows: statement.reader ? (statement.all(...values) as any[]) : (statement.run(...values), []) };
    },
    end: async () => void db?.close(),
  };
}

/**
 * Section 8's lists: the first cursor page, a cursor into the middle (made as the service
 * makes one, from the middle row's keys), `sort=-updated_at` and an `updated_since` that
 * finds the newest 100 rows, for contacts, deals and transactions.
 */
async function cursorCases(client: Sql, middle: number, rows: number): Promise<Case[]> {
  const lists = [
    ['contacts', 'Contact', CONTACT_LIST, '01CO'],
    ['deals', 'Deal', DEAL_LIST, '01DE'],
    ['transactions', 'PaymentTransaction', PAYMENT_TRANSACTION_LIST, '01TX'],
  ] as const;
  const out: Case[] = [];
  for (const [label, table, spec, prefix] of lists) {
    const path = `/${spec.name}`;
    const keys = parseSort(spec, spec.defaultSort);
    // The row as the service reads it: dates as Dates (SQLite keeps them as text).
    const read = async (id: number) => {
      const row = (await client.query(`SELECT * FROM "${table}" WHERE "id" = $1`, [`${prefix}${String(id).padStart(22, '0')}`])).rows[0];
      return { ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) };
    };
    const row = await read(middle);
    const since = (await read(rows - 99)).updatedAt;
    const cursor = encodeCursor(spec.name, sortText(keys), true, keys, row);
    out.push(
      [`${label}: cursor, first page`, `${path}?cursor=`],
      [`${label}: cursor, the middle`, `${path}?cursor=${cursor}`],
      [`${label}: \`sort=-updated_at\`, page 1`, `${path}?sort=-updated_at`],
      [`${label}: \`updated_since\` (the newest 100), cursor`, `${path}?updated_since=${encodeURIComponent(since.toISOString())}&cursor=`],
      [`${label}: \`updated_since\` (the newest 100), page 1`, `${path}?updated_since=${encodeURIComponent(since.toISOString())}`],
    );
  }
  return out;
}

/**
 * Each case once more, through the service in this process, capturing the SQL Prisma
 * sends; then PostgreSQL's plan for each SELECT with its parameters (EXPLAIN ANALYZE).
 */
async function explainPlans(key: string, list: Case[]): Promise<string[]> {
  const database = await openDatabase(target, { statements: true });
  const server = await listen(composeService(database), { HOST: '127.0.0.1', PORT: 0, RATE_LIMIT_PER_MINUTE: 0, LOG_LEVEL: 'warn' });
  const out: string[] = [];
  try {
    for (const [label, path, body] of list) {
      const statements: [string, unknown[]][] = [];
      database.onStatement((text, params) => statements.push([text, JSON.parse(params) as unknown[]]));
      await timeRequests(server.url, key, path, body, 0);
      database.onStatement(undefined);
      out.push(`**${label}**`, '');
      for (const [text, params] of statements.filter(([statement]) => /^\s*SELECT/i.test(statement))) {
        const plan = await sql.pg!.query({ text: `EXPLAIN (ANALYZE, COSTS OFF) ${text}`, values: params, rowMode: 'array' });
        out.push('```', text.length > 600 ? `${text.slice(0, 600)}…` : text, '', ...plan.rows.map((r: unknown[]) => String(r[0])), '```', '');
      }
    }
  } finally {
    await server.close();
    await database.close();
  }
  return out;
}

async function timeRequests(base: string, key: string, path: string, body?: object, count = REQUESTS): Promise<number[]> {
  const timings: number[] = [];
  const warmUp = count === 0 ? 0 : 10;
  for (let i = 0; i < Math.max(1, count + warmUp); i += 1) {
    const begin = performance.now();
    const response = await fetch(`${base}/api/v1${path}`, {
      method: body ? 'PUT' : 'GET',
      headers: { 'X-Api-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${text.slice(0, 300)}`);
    if (i >= warmUp) timings.push(performance.now() - begin);
  }
  return timings.sort((a, b) => a - b);
}

function ms(n: number): string {
  return n >= 100 ? n.toFixed(0) : n.toFixed(1);
}

/**
 * The rows, in set-based SQL. Ids are 26 characters like the service's ULIDs, and sort
 * in insertion order; the *Search columns hold what the service would store.
 */
async function load(client: Sql, workspaceId: string, rows: number): Promise<void> {
  const ws = workspaceId;
  const id = (prefix: string, expr = 'i') => `'${prefix}' || lpad((${expr})::text, 22, '0')`;
  // Row i was created and last updated (rows - i) seconds ago: times in id order, all distinct;
  // transactions spread the same way over three years (a report has that many days to add up).
  const at = `now() - (${rows} - i) * interval '1 second'`;
  const paidAt = `now() - (${rows} - i) * interval '${TRANSACTION_SPACING_SECONDS} seconds'`;
  // Deals close on each day of 2025 and 2026 in turn.
  const closes = `to_char(date '2025-01-01' + i % 730, 'YYYY-MM-DD')`;
  const statements = [
    `INSERT INTO "User" ("id","workspaceId","name","email","updatedAt")
       SELECT ${id('01US')}, '${ws}', 'User ' || i, 'user' || i || '@example.com', now() FROM generate_series(1, 10) i`,
    `INSERT INTO "Pipeline" ("id","workspaceId","name","isDefault","updatedAt") VALUES (${id('01PI', '1')}, '${ws}', 'Sales', true, now())`,
    `INSERT INTO "DealStage" ("id","workspaceId","pipelineId","externalId","name","order","color","probability","updatedAt")
       SELECT ${id('01ST')}, '${ws}', ${id('01PI', '1')}, ${id('01SX')}, 'Stage ' || i, i, '#336699', i * 0.2, now() FROM generate_series(1, 5) i`,
    `INSERT INTO "PaymentProviderAccount" ("id","workspaceId","name","provider","updatedAt") VALUES (${id('01PA', '1')}, '${ws}', 'Main', 'stripe', now())`,
    `INSERT INTO "PaymentLink" ("id","workspaceId","publicToken","name","nameSearch","currency","isActive","interestRate","providerAccountId","updatedAt")
       SELECT ${id('01PL')}, '${ws}', md5('link' || i), 'Link ' || i, 'link ' || i, 'USD', true, 0, ${id('01PA', '1')}, now() FROM generate_series(1, 20) i`,
    `INSERT INTO "Contact" ("id","workspaceId","firstName","lastName","email","properties","search","createdAt","updatedAt")
       SELECT ${id('01CO')}, '${ws}', 'First ' || i, 'Last ' || i, 'contact' || i || '@example.com', '{}', 'first ' || i || ' last ' || i || ' contact' || i || '@example.com', ${at}, ${at}
       FROM generate_series(1, ${rows}) i`,
    `INSERT INTO "Deal" ("id","workspaceId","name","estimatedValue","expectedCloseDate","stageId","userId","properties","createdAt","updatedAt")
       SELECT ${id('01DE')}, '${ws}', 'Deal ' || i, i % 10000, ${closes}, ${id('01ST', '1 + i % 5')}, ${id('01US', '1 + i % 10')}, '{}', ${at}, ${at}
       FROM generate_series(1, ${rows}) i`,
    `INSERT INTO "_ContactToDeal" ("A","B") SELECT ${id('01CO')}, ${id('01DE')} FROM generate_series(1, ${rows}) i`,
    `INSERT INTO "PaymentTransaction" ("id","workspaceId","status","providerReference","referenceSearch","providerAccountId","paymentLinkId","amount","currency","metadata","createdAt","updatedAt")
       SELECT ${id('01TX')}, '${ws}', (ARRAY['pending','processing','paid','failed','refunded','canceled'])[1 + i % 6], 'ref-' || i || 'x', 'ref-' || i || 'x',
              ${id('01PA', '1')}, ${id('01PL', '1 + i % 20')}, 10 + i % 990, 'USD', '{}', ${paidAt}, ${paidAt}
       FROM generate_series(1, ${rows}) i`,
    `INSERT INTO "PaymentTransactionEvent" ("id","workspaceId","transactionId","type","status","providerReference","payload","occurredAt")
       SELECT ${id('01EV')}, '${ws}', ${id('01TX')}, 'payment.created', 'pending', 'evt-' || i, '{}', now() FROM generate_series(1, ${rows}) i`,
    // The search index as the write path would have written it (src/search/documents.ts): words, fields, the REST object.
    `INSERT INTO "SearchEntry" ("id","workspaceId","type","title","subtitle","words","fields","record","createdAt")
       SELECT ${id('01CO')}, '${ws}', 'contacts', 'First ' || i || ' Last ' || i, 'contact' || i || '@example.com',
              '${searchWord(ws)} xfirst x' || i || ' xlast xcontact' || i || ' xexample xcom yfirst ylast ycontact' || i || ' yexample zcontact' || i,
              E'\\nfirst ' || i || ' last ' || i || E'\\nfirst ' || i || E'\\nlast ' || i || E'\\ncontact' || i || ' example com' || E'\\ncontact' || i || E'\\nexample com\\n',
              '{"id":"' || ${id('01CO')} || '"}', ${at}
       FROM generate_series(1, ${rows}) i`,
    `INSERT INTO "SearchEntry" ("id","workspaceId","type","title","subtitle","words","fields","record","createdAt")
       SELECT ${id('01DE')}, '${ws}', 'deals', 'Deal ' || i, 'Stage ' || (1 + i % 5), '${searchWord(ws)} xdeal x' || i || ' ydeal', E'\\ndeal ' || i || E'\\n', '{"id":"' || ${id('01DE')} || '"}', ${at}
       FROM generate_series(1, ${rows}) i`,
  ];
  for (const statement of statements) {
    const begin = performance.now();
    await client.query(statement);
    progress(`  ${statement.trim().split('\n')[0]!.slice(0, 60)}… ${((performance.now() - begin) / 1000).toFixed(1)} s`);
  }
}

/**
 * The same rows on SQLite: a recursive series instead of generate_series, and times as
 * the service stores them (ISO text with `+00:00`).
 */
async function loadSqlite(client: Sql, workspaceId: string, rows: number): Promise<void> {
  const ws = workspaceId;
  const id = (prefix: string, expr = 'i') => `'${prefix}' || substr('0000000000000000000000' || (${expr}), -22, 22)`;
  const series = (n: number) => `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n})`;
  const now = `strftime('%Y-%m-%dT%H:%M:%f', 'now') || '+00:00'`;
  const at = `strftime('%Y-%m-%dT%H:%M:%f', 'now', '-' || (${rows} - i) || ' seconds') || '+00:00'`;
  const paidAt = `strftime('%Y-%m-%dT%H:%M:%f', 'now', '-' || ((${rows} - i) * ${TRANSACTION_SPACING_SECONDS}) || ' seconds') || '+00:00'`;
  const closes = `date('2025-01-01', '+' || (i % 730) || ' days')`;
  const statements = [
    `${series(10)} INSERT INTO "User" ("id","workspaceId","name","email","createdAt","updatedAt")
       SELECT ${id('01US')}, '${ws}', 'User ' || i, 'user' || i || '@example.com', ${now}, ${now} FROM s`,
    `INSERT INTO "Pipeline" ("id","workspaceId","name","isDefault","createdAt","updatedAt") VALUES (${id('01PI', '1')}, '${ws}', 'Sales', 1, ${now}, ${now})`,
    `${series(5)} INSERT INTO "DealStage" ("id","workspaceId","pipelineId","externalId","name","order","color","probability","createdAt","updatedAt")
       SELECT ${id('01ST')}, '${ws}', ${id('01PI', '1')}, ${id('01SX')}, 'Stage ' || i, i, '#336699', i * 0.2, ${now}, ${now} FROM s`,
    `INSERT INTO "PaymentProviderAccount" ("id","workspaceId","name","provider","createdAt","updatedAt") VALUES (${id('01PA', '1')}, '${ws}', 'Main', 'stripe', ${now}, ${now})`,
    `${series(20)} INSERT INTO "PaymentLink" ("id","workspaceId","publicToken","name","nameSearch","currency","isActive","interestRate","providerAccountId","createdAt","updatedAt")
       SELECT ${id('01PL')}, '${ws}', hex(randomblob(16)), 'Link ' || i, 'link ' || i, 'USD', 1, 0, ${id('01PA', '1')}, ${now}, ${now} FROM s`,
    `${series(rows)} INSERT INTO "Contact" ("id","workspaceId","firstName","lastName","email","properties","search","createdAt","updatedAt")
       SELECT ${id('01CO')}, '${ws}', 'First ' || i, 'Last ' || i, 'contact' || i || '@example.com', '{}', 'first ' || i || ' last ' || i || ' contact' || i || '@example.com', ${at}, ${at} FROM s`,
    `${series(rows)} INSERT INTO "Deal" ("id","workspaceId","name","estimatedValue","expectedCloseDate","stageId","userId","properties","createdAt","updatedAt")
       SELECT ${id('01DE')}, '${ws}', 'Deal ' || i, i % 10000, ${closes}, ${id('01ST', '1 + i % 5')}, ${id('01US', '1 + i % 10')}, '{}', ${at}, ${at} FROM s`,
    `${series(rows)} INSERT INTO "_ContactToDeal" ("A","B") SELECT ${id('01CO')}, ${id('01DE')} FROM s`,
    `${series(rows)} INSERT INTO "PaymentTransaction" ("id","workspaceId","status","providerReference","referenceSearch","providerAccountId","paymentLinkId","amount","currency","metadata","createdAt","updatedAt")
       SELECT ${id('01TX')}, '${ws}', CASE i % 6 WHEN 0 THEN 'pending' WHEN 1 THEN 'processing' WHEN 2 THEN 'paid' WHEN 3 THEN 'failed' WHEN 4 THEN 'refunded' ELSE 'canceled' END,
              'ref-' || i || 'x', 'ref-' || i || 'x', ${id('01PA', '1')}, ${id('01PL', '1 + i % 20')}, 10 + i % 990, 'USD', '{}', ${paidAt}, ${paidAt} FROM s`,
    `${series(rows)} INSERT INTO "PaymentTransactionEvent" ("id","workspaceId","transactionId","type","status","providerReference","payload","occurredAt","createdAt")
       SELECT ${id('01EV')}, '${ws}', ${id('01TX')}, 'payment.created', 'pending', 'evt-' || i, '{}', ${now}, ${now} FROM s`,
    `${series(rows)} INSERT INTO "SearchEntry" ("id","workspaceId","type","title","subtitle","words","fields","record","createdAt")
       SELECT ${id('01CO')}, '${ws}', 'contacts', 'First ' || i || ' Last ' || i, 'contact' || i || '@example.com',
              '${searchWord(ws)} xfirst x' || i || ' xlast xcontact' || i || ' xexample xcom yfirst ylast ycontact' || i || ' yexample zcontact' || i,
              char(10) || 'first ' || i || ' last ' || i || char(10) || 'first ' || i || char(10) || 'last ' || i || char(10) || 'contact' || i || ' example com' || char(10) || 'contact' || i || char(10) || 'example com' || char(10),
              '{"id":"' || ${id('01CO')} || '"}', ${at} FROM s`,
    `${series(rows)} INSERT INTO "SearchEntry" ("id","workspaceId","type","title","subtitle","words","fields","record","createdAt")
       SELECT ${id('01DE')}, '${ws}', 'deals', 'Deal ' || i, 'Stage ' || (1 + i % 5), '${searchWord(ws)} xdeal x' || i || ' ydeal', char(10) || 'deal ' || i || char(10), '{"id":"' || ${id('01DE')} || '"}', ${at} FROM s`,
  ];
  for (const statement of statements) {
    const begin = performance.now();
    await client.query(statement);
    progress(`  ${statement.trim().split('\n')[0]!.slice(0, 60)}… ${((performance.now() - begin) / 1000).toFixed(1)} s`);
  }
}
