import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type DatabaseTarget, resolveDatabase } from '../src/db/database-url.js';
import { applyMigrations, migrationFiles } from '../src/db/migrate.js';
import { openSqliteFile } from '../src/db/sqlite-adapter.js';
import { freshDatabase } from './support/fresh-database.js';

/** Runs SQL on a database of either provider, for looking behind the applier. */
async function sql(url: string, text: string): Promise<Record<string, unknown>[]> {
  const target = resolveDatabase(url);
  if (target.provider === 'sqlite') {
    const db = openSqliteFile(target.file);
    try {
      return /^\s*select/i.test(text) ? (db.prepare(text).all() as Record<string, unknown>[]) : (db.exec(text), []);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

let drop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await drop?.();
  drop = undefined;
});

/** A fresh database (dropped after the test) with every migration before the one named `*_<name>` applied. */
async function migratedUpTo(name: string) {
  const fresh = await freshDatabase();
  drop = fresh.drop;
  const target = resolveDatabase(fresh.url);
  const names = migrationFiles(target.provider).map((f) => f.name);
  await applyMigrations(target, { until: names.filter((n) => n < migrationNamed(target, name)).at(-1)! });
  return { fresh, target };
}

/** The full name of the migration `*_<name>`. */
const migrationNamed = (target: DatabaseTarget, name: string) => migrationFiles(target.provider).find((f) => f.name.endsWith(`_${name}`))!.name;

describe('migrations', () => {
  it('apply once, keep Prisma-compatible history, and create every model table', async () => {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    const target = resolveDatabase(fresh.url);
    const files = migrationFiles(target.provider);
    expect(files.length).toBeGreaterThan(0);
    expect(await applyMigrations(target)).toEqual(files.map((f) => f.name));
    expect(await applyMigrations(target)).toEqual([]);
    const rows = await sql(fresh.url, 'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name');
    expect(rows.map((r) => [r.migration_name, r.checksum, Number(r.applied_steps_count)])).toEqual(files.map((f) => [f.name, f.checksum, 1]));
    expect(rows.every((r) => r.finished_at !== null)).toBe(true);
    for (const table of ['Workspace', 'ApiKey', 'Contact', 'Deal', 'DealStage', 'Task', 'Ticket', 'TicketStatus', 'PaymentLink', 'PaymentCoupon', 'PaymentTransaction', 'PaymentTransactionEvent', 'IdempotencyRecord']) {
      expect(await sql(fresh.url, `SELECT COUNT(*) AS n FROM "${table}"`)).toHaveLength(1);
    }
  });

  it('refuse a history whose applied migration was changed', async () => {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    const target = resolveDatabase(fresh.url);
    await applyMigrations(target);
    await sql(fresh.url, `UPDATE "_prisma_migrations" SET checksum = 'tampered'`);
    await expect(applyMigrations(target)).rejects.toThrow(/was changed after it was applied/);
  });
});

describe('the checkout_amounts migration', () => {
  it("gives each checkout made before it its amounts, from its transaction's metadata, exactly", async () => {
    const { fresh, target } = await migratedUpTo('checkout_amounts');
    const now = "'2026-11-20T10:00:00.000Z'";
    const amounts = { currency: 'USD', subtotal: 120, discount: 12, total: 113.76, interest: 5.76, installments: 6, installmentAmount: 18.96, schedule: [], coupon: null };
    const metadata = JSON.stringify({ checkout: { amounts, payer: { name: 'Ada', email: 'ada@x.io' }, contact_id: 'c1' } }).replace(/'/g, "''");
    await sql(fresh.url, `INSERT INTO "Workspace" ("id", "name", "updatedAt") VALUES ('w1', 'w', ${now})`);
    await sql(fresh.url, `INSERT INTO "PaymentProviderAccount" ("id", "workspaceId", "name", "provider", "updatedAt") VALUES ('a1', 'w1', 'Test', 'test', ${now})`);
    await sql(fresh.url, `INSERT INTO "PaymentLink" ("id", "workspaceId", "publicToken", "name", "nameSearch", "currency", "interestRate", "providerAccountId", "updatedAt") VALUES ('l1', 'w1', 'tok', 'Plan', 'plan', 'USD', 1.5, 'a1', ${now})`);
    await sql(fresh.url, `INSERT INTO "PaymentTransaction" ("id", "workspaceId", "providerReference", "referenceSearch", "providerAccountId", "paymentLinkId", "amount", "currency", "metadata", "updatedAt") VALUES ('t1', 'w1', 'checkout_x', 'checkout_x', 'a1', 'l1', 113.76, 'USD', '${metadata}', ${now})`);
    await sql(fresh.url, `INSERT INTO "Checkout" ("id", "workspaceId", "token", "paymentLinkId", "transactionId") VALUES ('k1', 'w1', 'x', 'l1', 't1')`);

    expect(await applyMigrations(target)).toContainEqual(expect.stringMatching(/_checkout_amounts$/));
    const [row] = await sql(fresh.url, `SELECT "currency", CAST("subtotal" AS TEXT) AS "subtotal", CAST("discount" AS TEXT) AS "discount", CAST("interest" AS TEXT) AS "interest", CAST("total" AS TEXT) AS "total", "installments", CAST("installmentAmount" AS TEXT) AS "installmentAmount" FROM "Checkout"`);
    const decimal = (text: unknown) => Number(text).toFixed(2);
    expect({ ...row, subtotal: decimal(row!.subtotal), discount: decimal(row!.discount), interest: decimal(row!.interest), total: decimal(row!.total), installmentAmount: decimal(row!.installmentAmount) }).toEqual({
      currency: 'USD', subtotal: '120.00', discount: '12.00', interest: '5.76', total: '113.76', installments: 6, installmentAmount: '18.96',
    });
  });

  it("the checkout_metadata_snake_case migration renames the service's keys in checkouts' metadata, and only there", async () => {
    const { fresh, target } = await migratedUpTo('checkout_metadata_snake_case');
    const now = "'2026-11-20T10:00:00.000Z'";
    const amounts = { currency: 'USD', subtotal: 120, discount: 0, total: 120, interest: 0, installments: 2, installmentAmount: 60, schedule: [{ number: 1, amount: 60, dueDate: '2026-11-20' }, { number: 2, amount: 60, dueDate: '2026-12-20' }], coupon: null };
    const checkout = { checkout: { amounts, payer: { name: 'Ada', email: 'ada@x.io' }, contact_id: 'c1' } };
    const clients = { dueDate: 'theirs', installmentAmount: 1 };
    await sql(fresh.url, `INSERT INTO "Workspace" ("id", "name", "updatedAt") VALUES ('w1', 'w', ${now})`);
    await sql(fresh.url, `INSERT INTO "PaymentProviderAccount" ("id", "workspaceId", "name", "provider", "updatedAt") VALUES ('a1', 'w1', 'Test', 'test', ${now})`);
    await sql(fresh.url, `INSERT INTO "PaymentLink" ("id", "workspaceId", "publicToken", "name", "nameSearch", "currency", "interestRate", "providerAccountId", "updatedAt") VALUES ('l1', 'w1', 'tok', 'Plan', 'plan', 'USD', 1.5, 'a1', ${now})`);
    for (const [id, metadata] of [['t1', checkout], ['t2', clients]] as const) {
      await sql(fresh.url, `INSERT INTO "PaymentTransaction" ("id", "workspaceId", "providerReference", "referenceSearch", "providerAccountId", "paymentLinkId", "amount", "currency", "metadata", "updatedAt") VALUES ('${id}', 'w1', 'ref_${id}', 'ref_${id}', 'a1', 'l1', 120, 'USD', '${JSON.stringify(metadata)}', ${now})`);
    }
    expect(await applyMigrations(target)).toContainEqual(expect.stringMatching(/_checkout_metadata_snake_case$/));
    const rows = await sql(fresh.url, `SELECT "id", CAST("metadata" AS TEXT) AS "metadata" FROM "PaymentTransaction" ORDER BY "id"`);
    const { installmentAmount, schedule, ...rest } = amounts;
    expect(rows.map((r) => JSON.parse(String(r.metadata)))).toEqual([
      { ...checkout, checkout: { ...checkout.checkout, amounts: { ...rest, installment_amount: installmentAmount, schedule: schedule.map(({ dueDate, ...s }) => ({ ...s, due_date: dueDate })) } } },
      clients,
    ]);
  });

  it("gives each deal made before it its workspace's default currency of the time", async () => {
    const { fresh, target } = await migratedUpTo('deal_currency');
    const now = "'2026-11-20T10:00:00.000Z'";
    for (const [ws, currency] of [['w1', 'EUR'], ['w2', 'JPY']]) {
      await sql(fresh.url, `INSERT INTO "Workspace" ("id", "name", "defaultCurrency", "updatedAt") VALUES ('${ws}', '${ws}', '${currency}', ${now})`);
      await sql(fresh.url, `INSERT INTO "User" ("id", "workspaceId", "name", "email", "updatedAt") VALUES ('u${ws}', '${ws}', 'U', 'u@x.io', ${now})`);
      await sql(fresh.url, `INSERT INTO "Pipeline" ("id", "workspaceId", "name", "updatedAt") VALUES ('p${ws}', '${ws}', 'P', ${now})`);
      await sql(fresh.url, `INSERT INTO "DealStage" ("id", "workspaceId", "pipelineId", "externalId", "name", "order", "color", "probability", "updatedAt") VALUES ('s${ws}', '${ws}', 'p${ws}', 'x${ws}', 'S', 0, '#fff', 10, ${now})`);
      await sql(fresh.url, `INSERT INTO "Deal" ("id", "workspaceId", "name", "estimatedValue", "stageId", "userId", "properties", "updatedAt") VALUES ('d${ws}', '${ws}', 'D', 5, 's${ws}', 'u${ws}', '{}', ${now})`);
    }
    expect(await applyMigrations(target)).toContainEqual(expect.stringMatching(/_deal_currency$/));
    expect(await sql(fresh.url, `SELECT "id", "currency" FROM "Deal" ORDER BY "id"`)).toEqual([{ id: 'dw1', currency: 'EUR' }, { id: 'dw2', currency: 'JPY' }]);
  });

  it("stores the search index's words of the records made before it behind an `x`, the workspace's token first as it was", async () => {
    const { fresh, target } = await migratedUpTo('search_word_namespace');
    const now = "'2026-11-20T10:00:00.000Z'";
    await sql(fresh.url, `INSERT INTO "Workspace" ("id", "name", "updatedAt") VALUES ('W1', 'w', ${now})`);
    for (const [id, words] of [['e1', 'ww1 ada lovelace 987'], ['e2', 'ww1']]) {
      await sql(fresh.url, `INSERT INTO "SearchEntry" ("id", "workspaceId", "type", "title", "words", "fields", "record", "createdAt") VALUES ('${id}', 'W1', 'contacts', 'T', '${words}', '', '{}', ${now})`);
    }
    expect(await applyMigrations(target)).toContainEqual(expect.stringMatching(/_search_word_namespace$/));
    expect(await sql(fresh.url, `SELECT "id", "words" FROM "SearchEntry" ORDER BY "id"`)).toEqual([{ id: 'e1', words: 'ww1 xada xlovelace x987' }, { id: 'e2', words: 'ww1' }]);
    // The full-text index follows the rows: the new words are found, the old ones no longer.
    const found = (match: string) =>
      target.provider === 'sqlite'
        ? sql(fresh.url, `SELECT e."id" FROM "SearchEntry_fts" f JOIN "SearchEntry" e ON e."rowid" = f."rowid" WHERE "SearchEntry_fts" MATCH '"${match}"*' ORDER BY e."id"`)
        : sql(fresh.url, `SELECT "id" FROM "SearchEntry" WHERE to_tsvector('simple', "words") @@ to_tsquery('simple', '${match}:*') ORDER BY "id"`);
    expect([await found('xlove'), await found('love'), await found('ww1')]).toEqual([[{ id: 'e1' }], [], [{ id: 'e1' }, { id: 'e2' }]]);
  });

  it("adds the rank's tokens to the search index's entries made before it: each field's first word, each one-word field", async () => {
    const { fresh, target } = await migratedUpTo('search_rank_words');
    const now = "'2026-11-20T10:00:00.000Z'";
    await sql(fresh.url, `INSERT INTO "Workspace" ("id", "name", "updatedAt") VALUES ('W1', 'w', ${now})`);
    // Fields one per line, written here with `|` for the line breaks.
    const newline = target.provider === 'sqlite' ? 'char(10)' : 'chr(10)';
    for (const [id, words, fields] of [['e1', 'ww1 xada xlovelace', '|ada lovelace|ada|lovelace|'], ['e2', 'ww1', '||']]) {
      await sql(fresh.url, `INSERT INTO "SearchEntry" ("id", "workspaceId", "type", "title", "words", "fields", "record", "createdAt") VALUES ('${id}', 'W1', 'contacts', 'T', '${words}', replace('${fields}', '|', ${newline}), '{}', ${now})`);
    }
    expect(await applyMigrations(target)).toContainEqual(expect.stringMatching(/_search_rank_words$/));
    const tokens = async () => Object.fromEntries((await sql(fresh.url, `SELECT "id", "words" FROM "SearchEntry" ORDER BY "id"`)).map((r) => [r.id, [...new Set(String(r.words).split(' '))].sort()]));
    expect(await tokens()).toEqual({ e1: ['ww1', 'xada', 'xlovelace', 'yada', 'ylovelace', 'zada', 'zlovelace'], e2: ['ww1'] });
    const found = (token: string) =>
      target.provider === 'sqlite'
        ? sql(fresh.url, `SELECT e."id" FROM "SearchEntry_fts" f JOIN "SearchEntry" e ON e."rowid" = f."rowid" WHERE "SearchEntry_fts" MATCH '"${token}"'`)
        : sql(fresh.url, `SELECT "id" FROM "SearchEntry" WHERE to_tsvector('simple', "words") @@ to_tsquery('simple', '${token}')`);
    expect([await found('zada'), await found('yada'), await found('yl')]).toEqual([[{ id: 'e1' }], [{ id: 'e1' }], []]);
  });
});

/** A workspace with one owner, pipeline and stage, and the INSERT of a deal of theirs, for the report totals' migrations. */
const NOW = "'2026-11-20T10:00:00.000+00:00'";
const REPORT_FIXTURES = [
  `INSERT INTO "Workspace" ("id", "name", "updatedAt") VALUES ('w1', 'w', ${NOW})`,
  `INSERT INTO "User" ("id", "workspaceId", "name", "email", "updatedAt") VALUES ('u1', 'w1', 'U', 'u@x.io', ${NOW})`,
  `INSERT INTO "Pipeline" ("id", "workspaceId", "name", "updatedAt") VALUES ('p1', 'w1', 'P', ${NOW})`,
  `INSERT INTO "DealStage" ("id", "workspaceId", "pipelineId", "externalId", "name", "order", "color", "probability", "updatedAt") VALUES ('s1', 'w1', 'p1', 'x1', 'S', 0, '#fff', 10, ${NOW})`,
];
const insertDeal = (id: string, value: number, currency: string, close: string | null, at: string) =>
  `INSERT INTO "Deal" ("id", "workspaceId", "name", "estimatedValue", "currency", "expectedCloseDate", "stageId", "userId", "properties", "createdAt", "updatedAt") VALUES ('${id}', 'w1', 'D', ${value}, '${currency}', ${close === null ? 'NULL' : `'${close}'`}, 's1', 'u1', '{}', '${at}', ${NOW})`;

describe('the report_totals migration', () => {
  it('adds up the deals and transactions made before it, exactly', async () => {
    const { fresh, target } = await migratedUpTo('report_totals');
    const statements = [
      ...REPORT_FIXTURES,
      ...[['d1', 0.1, "'2026-01-05'"], ['d2', 0.2, "'2026-01-31'"], ['d3', 99999999999.9999, 'NULL']].map(
        ([id, value, close]) => `INSERT INTO "Deal" ("id", "workspaceId", "name", "estimatedValue", "expectedCloseDate", "stageId", "userId", "properties", "updatedAt") VALUES ('${id}', 'w1', 'D', ${value}, ${close}, 's1', 'u1', '{}', ${NOW})`,
      ),
      `INSERT INTO "PaymentProviderAccount" ("id", "workspaceId", "name", "provider", "updatedAt") VALUES ('a1', 'w1', 'Test', 'test', ${NOW})`,
      `INSERT INTO "PaymentLink" ("id", "workspaceId", "publicToken", "name", "nameSearch", "currency", "interestRate", "providerAccountId", "updatedAt") VALUES ('l1', 'w1', 'tok', 'Plan', 'plan', 'USD', 0, 'a1', ${NOW})`,
      ...[['t1', 'paid', 0.1], ['t2', 'paid', 0.2], ['t3', 'failed', 7.0001]].map(
        ([id, status, amount]) => `INSERT INTO "PaymentTransaction" ("id", "workspaceId", "status", "providerReference", "referenceSearch", "providerAccountId", "paymentLinkId", "amount", "currency", "metadata", "createdAt", "updatedAt") VALUES ('${id}', 'w1', '${status}', '${id}', '${id}', 'a1', 'l1', ${amount}, 'EUR', '{}', ${NOW}, ${NOW})`,
      ),
    ];
    for (const statement of statements) await sql(fresh.url, statement);

    // This migration alone: report_totals_by_day (below) rebuilds these tables.
    expect(await applyMigrations(target, { until: migrationNamed(target, 'report_totals') })).toEqual([migrationNamed(target, 'report_totals')]);
    const rows = async (query: string) => (await sql(fresh.url, query)).map((row) => Object.values(row).map(String));
    expect(await rows(`SELECT "closeMonth", "currency", "slot", "deals", "value" FROM "DealTotal" ORDER BY "closeMonth"`)).toEqual([
      ['', 'USD', '0', '1', '999999999999999'],
      ['2026-01', 'USD', '0', '2', '3000'],
    ]);
    expect(await rows(`SELECT "day", "status", "currency", "slot", "payments", "amount" FROM "PaymentDayTotal" ORDER BY "status"`)).toEqual([
      ['2026-11-20', 'failed', 'EUR', '0', '1', '70001'],
      ['2026-11-20', 'paid', 'EUR', '0', '2', '3000'],
    ]);
    expect(await rows(`SELECT "paymentLinkId", "status", "payments", "amount" FROM "PaymentLinkTotal" ORDER BY "status"`)).toEqual([
      ['l1', 'failed', '1', '70001'],
      ['l1', 'paid', '2', '3000'],
    ]);
  });
});

describe('the report_totals_by_day migration', () => {
  it('rebuilds the totals of the deals and transactions made before it by month and day, exactly, and its triggers keep them', async () => {
    const { fresh, target } = await migratedUpTo('report_totals_by_day');
    const statements = [
      ...REPORT_FIXTURES,
      insertDeal('d1', 0.1, 'USD', '2026-01-05', '2026-03-01T10:00:00.000+00:00'),
      insertDeal('d2', 0.2, 'USD', '2026-01-31', '2026-03-01T23:00:00.000+00:00'),
      insertDeal('d3', 99999999999.9999, 'USD', null, '2026-03-02T00:00:00.000+00:00'),
      insertDeal('d4', 7, 'EUR', '2026-01-05', '2026-02-27T12:00:00.000+00:00'),
      `INSERT INTO "PaymentProviderAccount" ("id", "workspaceId", "name", "provider", "updatedAt") VALUES ('a1', 'w1', 'Test', 'test', ${NOW})`,
      ...['l1', 'l2'].map((id) => `INSERT INTO "PaymentLink" ("id", "workspaceId", "publicToken", "name", "nameSearch", "currency", "interestRate", "providerAccountId", "updatedAt") VALUES ('${id}', 'w1', 'tok-${id}', 'Plan', 'plan', 'EUR', 0, 'a1', ${NOW})`),
      ...[['t1', 'l1', 'paid', 0.1, '2026-03-01T23:59:59.999'], ['t2', 'l1', 'paid', 0.2, '2026-03-02T00:00:00.000'], ['t3', 'l2', 'failed', 7.0001, '2026-02-10T10:00:00.000']].map(
        ([id, link, status, amount, at]) =>
          `INSERT INTO "PaymentTransaction" ("id", "workspaceId", "status", "providerReference", "referenceSearch", "providerAccountId", "paymentLinkId", "amount", "currency", "metadata", "createdAt", "updatedAt") VALUES ('${id}', 'w1', '${status}', '${id}', '${id}', 'a1', '${link}', ${amount}, 'EUR', '{}', '${at}+00:00', ${NOW})`,
      ),
    ];
    for (const statement of statements) await sql(fresh.url, statement);

    expect(await applyMigrations(target)).toContainEqual(expect.stringMatching(/_report_totals_by_day$/));
    // Summed over slots: the triggers' own rows (PostgreSQL: in a slot per connection) after the rebuild's, in slot 0.
    const rows = async (query: string) => (await sql(fresh.url, query)).map((row) => Object.values(row).map(String));
    const deals = () => rows(`SELECT "closeDay", "closeMonth", "currency", SUM("deals") AS n, SUM("value") AS v FROM "DealTotal" GROUP BY 1, 2, 3 HAVING SUM("deals") <> 0 ORDER BY 1, 2, 3`);
    const created = () => rows(`SELECT "createdHour", "createdDay", "createdMonth", "currency", SUM("deals") AS n, SUM("value") AS v FROM "DealCreatedTotal" GROUP BY 1, 2, 3, 4 HAVING SUM("deals") <> 0 ORDER BY 1, 2, 3, 4`);
    const links = () => rows(`SELECT "day", "month", "paymentLinkId", "status", SUM("payments") AS n, SUM("amount") AS v FROM "PaymentLinkTotal" GROUP BY 1, 2, 3, 4 HAVING SUM("payments") <> 0 ORDER BY 1, 2, 3, 4`);
    expect(await rows(`SELECT DISTINCT "slot" FROM "DealTotal"`)).toEqual([['0']]);
    expect(await deals()).toEqual([
      ['', '', 'USD', '1', '999999999999999'],
      ['', '2026-01', 'EUR', '1', '70000'],
      ['', '2026-01', 'USD', '2', '3000'],
      ['2026-01-05', '2026-01', 'EUR', '1', '70000'],
      ['2026-01-05', '2026-01', 'USD', '1', '1000'],
      ['2026-01-31', '2026-01', 'USD', '1', '2000'],
    ]);
    expect(await created()).toEqual([
      ['', '', '2026-02', 'EUR', '1', '70000'],
      ['', '', '2026-03', 'USD', '3', '1000000000002999'],
      ['', '2026-02-27', '2026-02', 'EUR', '1', '70000'],
      ['', '2026-03-01', '2026-03', 'USD', '2', '3000'],
      ['', '2026-03-02', '2026-03', 'USD', '1', '999999999999999'],
      ['2026-02-27T12', '2026-02-27', '2026-02', 'EUR', '1', '70000'],
      ['2026-03-01T10', '2026-03-01', '2026-03', 'USD', '1', '1000'],
      ['2026-03-01T23', '2026-03-01', '2026-03', 'USD', '1', '2000'],
      ['2026-03-02T00', '2026-03-02', '2026-03', 'USD', '1', '999999999999999'],
    ]);
    expect(await links()).toEqual([
      ['', '2026-02', 'l2', 'failed', '1', '70001'],
      ['', '2026-03', 'l1', 'paid', '2', '3000'],
      ['2026-02-10', '2026-02', 'l2', 'failed', '1', '70001'],
      ['2026-03-01', '2026-03', 'l1', 'paid', '1', '1000'],
      ['2026-03-02', '2026-03', 'l1', 'paid', '1', '2000'],
    ]);
    // The PaymentDayTotal it left as it was.
    expect(await rows(`SELECT "day", "status", "payments", "amount" FROM "PaymentDayTotal" ORDER BY "day"`)).toEqual([
      ['2026-02-10', 'failed', '1', '70001'],
      ['2026-03-01', 'paid', '1', '1000'],
      ['2026-03-02', 'paid', '1', '2000'],
    ]);

    // Its triggers keep the new keys: a deal moved to another close day and created in another hour, a deal and a transaction gone.
    await sql(fresh.url, `UPDATE "Deal" SET "expectedCloseDate" = '2026-02-01', "createdAt" = '2026-02-27T13:00:00.000+00:00' WHERE "id" = 'd2'`);
    await sql(fresh.url, `DELETE FROM "Deal" WHERE "id" = 'd3'`);
    await sql(fresh.url, `DELETE FROM "PaymentTransaction" WHERE "id" = 't2'`);
    const [closed, made, linked] = [await deals(), await created(), await links()];
    expect([closed.length, made.length, linked.length]).toEqual([6, 9, 4]);
    expect(closed).toEqual(expect.arrayContaining([['2026-02-01', '2026-02', 'USD', '1', '2000'], ['', '2026-01', 'USD', '1', '1000']]));
    expect(made).toEqual(expect.arrayContaining([['2026-02-27T13', '2026-02-27', '2026-02', 'USD', '1', '2000'], ['', '', '2026-03', 'USD', '1', '1000']]));
    expect(linked).toEqual(expect.arrayContaining([['', '2026-03', 'l1', 'paid', '1', '1000']]));
  });
});

describe('the report_created_close_totals migration', () => {
  it('counts the deals made before it by creation and close levels together, exactly, and its triggers keep them', async () => {
    const { fresh, target } = await migratedUpTo('report_created_close_totals');
    for (const statement of [
      ...REPORT_FIXTURES,
      insertDeal('d1', 0.1, 'USD', '2026-01-05', '2026-03-01T10:00:00.000+00:00'),
      insertDeal('d2', 0.2, 'USD', '2026-01-05', '2026-03-01T10:30:00.000+00:00'),
      insertDeal('d3', 99999999999.9999, 'USD', null, '2026-03-02T00:00:00.000+00:00'),
    ])
      await sql(fresh.url, statement);

    expect(await applyMigrations(target)).toContainEqual(expect.stringMatching(/_report_created_close_totals$/));
    const rows = async (query: string) => (await sql(fresh.url, query)).map((row) => Object.values(row).map(String));
    const totals = () =>
      rows(`SELECT "createdHour", "createdDay", "createdMonth", "closeDay", "closeMonth", SUM("deals") AS n, SUM("value") AS v FROM "DealCreatedCloseTotal" GROUP BY 1, 2, 3, 4, 5 HAVING SUM("deals") <> 0 ORDER BY 1, 2, 3, 4, 5`);
    expect(await rows(`SELECT DISTINCT "slot" FROM "DealCreatedCloseTotal"`)).toEqual([['0']]);
    // Each deal in its creation month's, day's and hour's rows, each of them by close month ('' for none) and close day.
    expect(await totals()).toEqual([
      ['', '', '2026-03', '', '', '1', '999999999999999'],
      ['', '', '2026-03', '', '2026-01', '2', '3000'],
      ['', '', '2026-03', '2026-01-05', '2026-01', '2', '3000'],
      ['', '2026-03-01', '2026-03', '', '2026-01', '2', '3000'],
      ['', '2026-03-01', '2026-03', '2026-01-05', '2026-01', '2', '3000'],
      ['', '2026-03-02', '2026-03', '', '', '1', '999999999999999'],
      ['2026-03-01T10', '2026-03-01', '2026-03', '', '2026-01', '2', '3000'],
      ['2026-03-01T10', '2026-03-01', '2026-03', '2026-01-05', '2026-01', '2', '3000'],
      ['2026-03-02T00', '2026-03-02', '2026-03', '', '', '1', '999999999999999'],
    ]);

    // Its triggers: a deal given a close date and moved to another hour, another gone.
    await sql(fresh.url, `UPDATE "Deal" SET "expectedCloseDate" = '2026-02-01', "createdAt" = '2026-03-02T05:00:00.000+00:00' WHERE "id" = 'd3'`);
    await sql(fresh.url, `DELETE FROM "Deal" WHERE "id" = 'd2'`);
    expect(await totals()).toEqual([
      ['', '', '2026-03', '', '2026-01', '1', '1000'],
      ['', '', '2026-03', '', '2026-02', '1', '999999999999999'],
      ['', '', '2026-03', '2026-01-05', '2026-01', '1', '1000'],
      ['', '', '2026-03', '2026-02-01', '2026-02', '1', '999999999999999'],
      ['', '2026-03-01', '2026-03', '', '2026-01', '1', '1000'],
      ['', '2026-03-01', '2026-03', '2026-01-05', '2026-01', '1', '1000'],
      ['', '2026-03-02', '2026-03', '', '2026-02', '1', '999999999999999'],
      ['', '2026-03-02', '2026-03', '2026-02-01', '2026-02', '1', '999999999999999'],
      ['2026-03-01T10', '2026-03-01', '2026-03', '', '2026-01', '1', '1000'],
      ['2026-03-01T10', '2026-03-01', '2026-03', '2026-01-05', '2026-01', '1', '1000'],
      ['2026-03-02T05', '2026-03-02', '2026-03', '', '2026-02', '1', '999999999999999'],
      ['2026-03-02T05', '2026-03-02', '2026-03', '2026-02-01', '2026-02', '1', '999999999999999'],
    ]);
  });
});
