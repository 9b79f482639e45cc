import { type Db, providerOf } from '../../db/client.js';
import { workspaceOf } from '../../db/tenancy.js';
import { Prisma } from '../../generated/sqlite/client.js';
import type { DEAL_REPORT_GROUPS, PAYMENT_REPORT_GROUPS } from './reports.input.js';

/**
 * The reports' sums (API.md section 10), exact: integers of ten-thousandths (see
 * `fromTenThousandths`). They are read from the running totals the writes keep (DealTotal,
 * DealCreatedTotal, DealCreatedCloseTotal, PaymentDayTotal, PaymentLinkTotal; see
 * models.prisma): rows per calendar key and group, however many deals or transactions
 * (`dealSource`). The GROUP BY over the rows themselves, SUM(ROUND(x * 10000)), the same
 * statement on both databases (only the calendar functions differ by dialect), is the
 * reference the totals always equal (`dealSumsFromRows`, `paymentSumsFromRows`).
 */

/** A sum as the driver returns it (a bigint or number on SQLite, a Decimal on PostgreSQL), exactly. */
const exactInteger = (value: unknown): bigint => BigInt(String(value ?? 0));

/** An amount (at most 4 decimal places) as an exact integer of ten-thousandths, on both databases. */
const tenThousandths = (column: Prisma.Sql) => Prisma.sql`CAST(ROUND(${column} * 10000) AS BIGINT)`;

const where = (conditions: (Prisma.Sql | false | '' | undefined)[]) => Prisma.join(conditions.filter((c): c is Prisma.Sql => !!c), ' AND ');

const DAY_MS = 86_400_000;
/** The day after a `YYYY-MM-DD`, at 00:00 UTC. */
const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00.000Z`) + DAY_MS);
const startOf = (date: string) => new Date(`${date}T00:00:00.000Z`);
const HOUR_MS = 3_600_000;
/** An instant's UTC month (`YYYY-MM`), day (`YYYY-MM-DD`) or hour (`YYYY-MM-DDTHH`); undefined outside years 0000-9999, which no key names. */
const keyOf = (instant: Date, length: 7 | 10 | 13) => (/^\d{4}-/.test(instant.toISOString()) ? instant.toISOString().slice(0, length) : undefined);

/**
 * The rows of a total kept in two calendar levels (models.prisma: a month's row, whose `day`
 * is '', and the rows of its days) that add up to the days from..to (`YYYY-MM-DD`, both
 * inclusive, either or both left open): the rows of the months the range holds whole, and the
 * day rows of the months it cuts, at most two (its first and its last). Without a range, the
 * month rows, including '' (a deal without a close date), which any range leaves out. Each
 * part is a range of the table's key (workspace, day, month, ...), or with `listDays` the days
 * of a cut month one by one (where the day is followed in the key by what else is asked).
 */
function calendarParts(month: Prisma.Sql, day: Prisma.Sql, from?: string, to?: string, listDays = false): Prisma.Sql[] {
  const [fromMonth, toMonth] = [from?.slice(0, 7), to?.slice(0, 7)];
  const fromCuts = !!from && !from.endsWith('-01');
  const toCuts = !!to && nextDay(to).getUTCDate() !== 1;
  const months = where([
    Prisma.sql`${day} = ''`,
    (from || to) && Prisma.sql`${month} <> ''`,
    from && (fromCuts ? Prisma.sql`${month} > ${fromMonth}` : Prisma.sql`${month} >= ${fromMonth}`),
    to && (toCuts ? Prisma.sql`${month} < ${toMonth}` : Prisma.sql`${month} <= ${toMonth}`),
  ]);
  const days: [string, string][] = [];
  if (from && to && fromMonth === toMonth) {
    if (fromCuts || toCuts) days.push([from, to]);
  } else {
    if (fromCuts) days.push([from!, `${fromMonth}-31`]);
    if (toCuts) days.push([`${toMonth}-01`, to!]);
  }
  const dayRows = ([first, last]: [string, string]) =>
    listDays ? Prisma.sql`${day} IN (${Prisma.join(daysBetween(first, last))})` : Prisma.sql`${day} BETWEEN ${first} AND ${last}`;
  return [Prisma.sql`(${months})`, ...days.map(dayRows)];
}

const calendarRows = (month: Prisma.Sql, day: Prisma.Sql, from?: string, to?: string) => Prisma.sql`(${Prisma.join(calendarParts(month, day, from, to), ' OR ')})`;

/**
 * The calendar's days from `first` to `last`, both inclusive, of one month (`YYYY-MM-DD`;
 * `last` may be a '-31' the month lacks). The month bounds the walk: the day after 9999-12-31
 * is written '+010000-01-01', which sorts before any 'YYYY'.
 */
function daysBetween(first: string, last: string): string[] {
  const days: string[] = [];
  const month = first.slice(0, 7);
  for (let day = first; day <= last && day.startsWith(month); day = nextDay(day).toISOString().slice(0, 10)) days.push(day);
  return days;
}

/** A deal's close month (`YYYY-MM`, null without a close date), on the deals themselves (alias `d`). */
const DEAL_CLOSE_MONTH = Prisma.sql`substr(d."expectedCloseDate", 1, 7)`;

/** A report's `expected_close_from` / `_to` conditions on the deals themselves (alias `d`). */
const closeDateConditions = (f: DealSumsFilter) => [
  f.expectedCloseFrom && Prisma.sql`d."expectedCloseDate" >= ${f.expectedCloseFrom}`,
  f.expectedCloseTo && Prisma.sql`d."expectedCloseDate" <= ${f.expectedCloseTo}`,
];

export interface DealSum {
  /** The group's key: a stage id, a user id, a `YYYY-MM` (null: no expected close date). */
  key: string | null;
  stageId: string;
  currency: string;
  count: number;
  /** Σ estimated_value, in ten-thousandths. */
  sum: bigint;
}

export interface DealSumsFilter {
  groupBy: (typeof DEAL_REPORT_GROUPS)[number];
  pipelineId: string;
  userId?: string;
  createdSince?: Date;
  expectedCloseFrom?: string;
  expectedCloseTo?: string;
}

type DealSumRow = { key: string | null; stageId: string; currency: string; count: unknown; sum: unknown };
const dealSumOf = (r: DealSumRow): DealSum => ({ key: r.key, stageId: r.stageId, currency: r.currency, count: Number(r.count), sum: exactInteger(r.sum) });

/**
 * What a deal report adds up: rows of ("stageId", "userId", "closeMonth", "currency", "deals",
 * "value"), from the totals (or, for the one instant too far from the calendar to name its
 * hour, from the deals). The one rule:
 * - without `created_since`: DealTotal, by close month and day (any close dates, any grouping);
 * - with `created_since`: by creation month, day and hour, and the deals of its own hour read
 *   from the rows (at most half an hour's: `dealTotalsByCreation`); from DealCreatedTotal, or,
 *   with close dates or grouped by close month, from DealCreatedCloseTotal, which keeps the
 *   close month and day beside the creation levels.
 */
function dealSource(db: Db, f: DealSumsFilter): Prisma.Sql {
  if (!f.createdSince) return dealTotalsByClose(db, f);
  return dealTotalsByCreation(db, f.createdSince, f) ?? dealRows(db, f);
}

function dealTotalsByClose(db: Db, f: DealSumsFilter): Prisma.Sql {
  return Prisma.sql`
    SELECT t."stageId", t."userId", NULLIF(t."closeMonth", '') AS "closeMonth", t."currency", t."deals", t."value" FROM "DealTotal" t
     WHERE t."workspaceId" = ${workspaceOf(db)} AND ${calendarRows(Prisma.sql`t."closeMonth"`, Prisma.sql`t."closeDay"`, f.expectedCloseFrom, f.expectedCloseTo)}`;
}

/**
 * `created_since` from the creation totals' three levels (models.prisma): the whole hours from
 * its own on (or from the next, in the later half of its hour) to the end of that day, the
 * rest of that month's days, the later months; and the deals of its hour from the rows: those
 * created before it taken away, or those after it added (so at most half an hour's deals).
 * Close dates, or grouping by close month, read DealCreatedCloseTotal's rows of those close
 * days and months (as DealTotal's are read) instead of DealCreatedTotal. Undefined when the
 * hours cannot be named.
 */
function dealTotalsByCreation(db: Db, since: Date, f: DealSumsFilter): Prisma.Sql | undefined {
  const hourStart = Math.floor(since.getTime() / HOUR_MS) * HOUR_MS;
  const intoHour = since.getTime() - hourStart;
  const later = intoHour > HOUR_MS / 2;
  const from = new Date(later ? hourStart + HOUR_MS : hourStart);
  const [hour, day, month] = [keyOf(from, 13), keyOf(from, 10), keyOf(from, 7)];
  if (!hour || !day || !month || !keyOf(since, 13)) return undefined;
  const [midnight, firstOfMonth] = [hour.endsWith('T00'), day.endsWith('-01')];
  const parts = [
    // The later months (from the first midnight of a month, that month too).
    midnight && firstOfMonth
      ? Prisma.sql`(t."createdHour" = '' AND t."createdDay" = '' AND t."createdMonth" >= ${month})`
      : Prisma.sql`(t."createdHour" = '' AND t."createdDay" = '' AND t."createdMonth" > ${month})`,
    // The month's later days (from a midnight, that day too).
    midnight && !firstOfMonth && Prisma.sql`(t."createdHour" = '' AND t."createdDay" >= ${day} AND t."createdDay" <= ${`${month}-31`})`,
    !midnight && Prisma.sql`(t."createdHour" = '' AND t."createdDay" > ${day} AND t."createdDay" <= ${`${month}-31`})`,
    // The day's hours from this one.
    !midnight && Prisma.sql`(t."createdHour" BETWEEN ${hour} AND ${`${day}T23`})`,
  ];
  const created = parts.filter((part): part is Prisma.Sql => !!part);
  const byClose = f.groupBy === 'expected_close_month' || !!f.expectedCloseFrom || !!f.expectedCloseTo;
  // With close dates: each creation part of each close part, on its own, so that each is one
  // range of DealCreatedCloseTotal's key (close day first, then the creation levels).
  const totals = byClose
    ? Prisma.join(
        calendarParts(Prisma.sql`t."closeMonth"`, Prisma.sql`t."closeDay"`, f.expectedCloseFrom, f.expectedCloseTo, true).flatMap((close) =>
          created.map(
            (creation) => Prisma.sql`
    SELECT t."stageId", t."userId", NULLIF(t."closeMonth", '') AS "closeMonth", t."currency", t."deals", t."value" FROM "DealCreatedCloseTotal" t
     WHERE t."workspaceId" = ${workspaceOf(db)} AND ${creation} AND ${close}`,
          ),
        ),
        '\n    UNION ALL',
      )
    : Prisma.sql`
    SELECT t."stageId", t."userId", NULL AS "closeMonth", t."currency", t."deals", t."value" FROM "DealCreatedTotal" t
     WHERE t."workspaceId" = ${workspaceOf(db)} AND (${Prisma.join(created, ' OR ')})`;
  if (intoHour === 0) return totals;
  // The deals of `since`'s hour on the other side of it, added up per group before they meet the totals.
  const [first, end, sign] = later ? [since, from, Prisma.raw('1')] : [from, since, Prisma.raw('-1')];
  return Prisma.sql`${totals}
    UNION ALL
    SELECT d."stageId", d."userId", ${byClose ? DEAL_CLOSE_MONTH : Prisma.sql`NULL`}, d."currency", ${sign} * COUNT(*), ${sign} * SUM(${tenThousandths(Prisma.sql`d."estimatedValue"`)}) FROM "Deal" d
     WHERE ${where([
       Prisma.sql`d."workspaceId" = ${workspaceOf(db)} AND d."createdAt" >= ${first} AND d."createdAt" < ${end}`,
       ...closeDateConditions(f),
     ])}
     GROUP BY d."stageId", d."userId", ${byClose ? Prisma.sql`${DEAL_CLOSE_MONTH}, ` : Prisma.empty}d."currency"`;
}

function dealRows(db: Db, f: DealSumsFilter): Prisma.Sql {
  return Prisma.sql`
    SELECT d."stageId", d."userId", ${DEAL_CLOSE_MONTH} AS "closeMonth", d."currency", 1 AS "deals", ${tenThousandths(Prisma.sql`d."estimatedValue"`)} AS "value"
      FROM "Deal" d
     WHERE ${where([
       Prisma.sql`d."workspaceId" = ${workspaceOf(db)}`,
       f.createdSince && Prisma.sql`d."createdAt" >= ${f.createdSince}`,
       ...closeDateConditions(f),
     ])}`;
}

/** The pipeline's deals summed per group, stage and currency (the stage carries the weight). */
export function dealSums(db: Db, f: DealSumsFilter): Promise<DealSum[]> {
  return dealSumsOf(db, f, dealSource(db, f));
}

/** The same sums over the deals themselves: the tests' reference for the totals. */
export function dealSumsFromRows(db: Db, f: DealSumsFilter): Promise<DealSum[]> {
  return dealSumsOf(db, f, dealRows(db, f));
}

async function dealSumsOf(db: Db, f: DealSumsFilter, source: Prisma.Sql): Promise<DealSum[]> {
  const key = f.groupBy === 'stage' ? Prisma.sql`x."stageId"` : f.groupBy === 'user' ? Prisma.sql`x."userId"` : Prisma.sql`x."closeMonth"`;
  const rows = await db.$queryRaw<DealSumRow[]>`
    SELECT ${key} AS "key", x."stageId" AS "stageId", x."currency" AS "currency", SUM(x."deals") AS "count", SUM(x."value") AS "sum"
      FROM (${source}) x JOIN "DealStage" s ON s."id" = x."stageId"
     WHERE ${where([Prisma.sql`s."pipelineId" = ${f.pipelineId}`, f.userId !== undefined && Prisma.sql`x."userId" = ${f.userId}`])}
     GROUP BY ${key}, x."stageId", x."currency"
    HAVING SUM(x."deals") <> 0`;
  return rows.map(dealSumOf);
}

export interface PaymentSum {
  /** A day, Monday or month (`YYYY-MM-DD`, `YYYY-MM`), a status or a payment link id. */
  key: string;
  currency: string;
  count: number;
  sum: bigint;
}

export interface PaymentSumsFilter {
  groupBy: (typeof PAYMENT_REPORT_GROUPS)[number];
  /** UTC days of `created_at`, both inclusive. */
  from?: string;
  to?: string;
  status?: string;
  currency?: string;
}

type PaymentSumRow = { key: string; currency: string; count: unknown; sum: unknown };
const paymentSumOf = (r: PaymentSumRow): PaymentSum => ({ key: r.key, currency: r.currency, count: Number(r.count), sum: exactInteger(r.sum) });

/**
 * The calendar keys of an instant (UTC): `instant` is a timestamp on PostgreSQL, ISO 8601
 * text on SQLite (how it stores `created_at`, and a `YYYY-MM-DD` day is its prefix).
 */
function periodKey(db: Db, groupBy: 'day' | 'week' | 'month', instant: Prisma.Sql): Prisma.Sql {
  if (providerOf(db) === 'sqlite') {
    if (groupBy === 'day') return Prisma.sql`substr(${instant}, 1, 10)`;
    if (groupBy === 'month') return Prisma.sql`substr(${instant}, 1, 7)`;
    // The Sunday on or after the day, then back to its Monday.
    return Prisma.sql`date(substr(${instant}, 1, 10), 'weekday 0', '-6 days')`;
  }
  if (groupBy === 'day') return Prisma.sql`to_char(${instant}, 'YYYY-MM-DD')`;
  if (groupBy === 'month') return Prisma.sql`to_char(${instant}, 'YYYY-MM')`;
  return Prisma.sql`to_char(date_trunc('week', ${instant}), 'YYYY-MM-DD')`;
}

/**
 * The workspace's payment transactions summed per group and currency, from the totals: by
 * link, PaymentLinkTotal (its months and the days of the months `from`..`to` cuts); otherwise
 * PaymentDayTotal, whose days are whole, as `from` and `to` are.
 */
export async function paymentSums(db: Db, f: PaymentSumsFilter): Promise<PaymentSum[]> {
  const byLink = f.groupBy === 'payment_link';
  const day = providerOf(db) === 'sqlite' ? Prisma.sql`t."day"` : Prisma.sql`t."day"::timestamp`;
  const key = f.groupBy === 'payment_link' ? Prisma.sql`t."paymentLinkId"` : f.groupBy === 'status' ? Prisma.sql`t."status"` : periodKey(db, f.groupBy, day);
  const rows = await db.$queryRaw<PaymentSumRow[]>`
    SELECT ${key} AS "key", t."currency" AS "currency", SUM(t."payments") AS "count", SUM(t."amount") AS "sum"
      FROM ${byLink ? Prisma.sql`"PaymentLinkTotal"` : Prisma.sql`"PaymentDayTotal"`} t
     WHERE ${where([
       Prisma.sql`t."workspaceId" = ${workspaceOf(db)}`,
       byLink && calendarRows(Prisma.sql`t."month"`, Prisma.sql`t."day"`, f.from, f.to),
       !byLink && f.from && Prisma.sql`t."day" >= ${f.from}`,
       !byLink && f.to && Prisma.sql`t."day" <= ${f.to}`,
       f.status !== undefined && Prisma.sql`t."status" = ${f.status}`,
       f.currency !== undefined && Prisma.sql`t."currency" = ${f.currency}`,
     ])}
     GROUP BY ${key}, t."currency"
    HAVING SUM(t."payments") <> 0`;
  return rows.map(paymentSumOf);
}

/** The same sums over the transactions themselves: the tests' reference for the totals. */
export async function paymentSumsFromRows(db: Db, f: PaymentSumsFilter): Promise<PaymentSum[]> {
  const key =
    f.groupBy === 'status' ? Prisma.sql`t."status"` : f.groupBy === 'payment_link' ? Prisma.sql`t."paymentLinkId"` : periodKey(db, f.groupBy, Prisma.sql`t."createdAt"`);
  const rows = await db.$queryRaw<PaymentSumRow[]>`
    SELECT ${key} AS "key", t."currency" AS "currency", COUNT(*) AS "count", SUM(${tenThousandths(Prisma.sql`t."amount"`)}) AS "sum"
      FROM "PaymentTransaction" t
     WHERE ${where([
       Prisma.sql`t."workspaceId" = ${workspaceOf(db)}`,
       f.from && Prisma.sql`t."createdAt" >= ${startOf(f.from)}`,
       f.to && Prisma.sql`t."createdAt" < ${nextDay(f.to)}`,
       f.status !== undefined && Prisma.sql`t."status" = ${f.status}`,
       f.currency !== undefined && Prisma.sql`t."currency" = ${f.currency}`,
     ])}
     GROUP BY ${key}, t."currency"`;
  return rows.map(paymentSumOf);
}
