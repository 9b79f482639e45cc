import { type Db, providerOf } from '../../db/client.js';
import { workspaceOf } from '../../db/tenancy.js';
import { Prisma } from '../../generated/sqlite/client.js';
import type { DEAL_REPORT_GROUPS, PAYMENT_REPORT_GROUPS } from './reports.input.js';

/**
 * The reports' sums (API.md section 10), exact: integers of ten-thousandths (see
 * `fromTenThousandths`). They are read from the running totals the writes keep (DealTotal,
 * PaymentDayTotal, PaymentLinkTotal; see models.prisma) whenever the filters fall on the
 * totals' groups: a few hundred rows, however many deals or transactions. Otherwise one
 * GROUP BY over the rows themselves, SUM(ROUND(x * 10000)), the same statement on both
 * databases (only the calendar functions differ by dialect): the reference the totals
 * always equal.
 */

/** A sum as the driver returns it (a bigint or number on SQLite, a Decimal on PostgreSQL), exactly. */
const exactInteger = (value: unknown): bigint => BigInt(String(value ?? 0));

const tenThousandths = (column: Prisma.Sql) => Prisma.sql`SUM(CAST(ROUND(${column} * 10000) AS BIGINT))`;

const where = (conditions: (Prisma.Sql | false | '' | undefined)[]) => Prisma.join(conditions.filter((c): c is Prisma.Sql => !!c), ' AND ');

/** The day after a `YYYY-MM-DD`, at 00:00 UTC. */
const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00.000Z`) + 86_400_000);
const startOf = (date: string) => new Date(`${date}T00:00:00.000Z`);

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
 * DealTotal answers a deal report unless it is filtered by creation time (the totals do not
 * know it) or by expected close dates that cut a month (the totals know only the month).
 */
const dealTotalsAnswer = (f: DealSumsFilter) =>
  !f.createdSince && (!f.expectedCloseFrom || f.expectedCloseFrom.endsWith('-01')) && (!f.expectedCloseTo || nextDay(f.expectedCloseTo).getUTCDate() === 1);

/** The pipeline's deals summed per group, stage and currency (the stage carries the weight). */
export function dealSums(db: Db, f: DealSumsFilter): Promise<DealSum[]> {
  return dealTotalsAnswer(f) ? dealSumsFromTotals(db, f) : dealSumsFromRows(db, f);
}

async function dealSumsFromTotals(db: Db, f: DealSumsFilter): Promise<DealSum[]> {
  const key = f.groupBy === 'stage' ? Prisma.sql`t."stageId"` : f.groupBy === 'user' ? Prisma.sql`t."userId"` : Prisma.sql`NULLIF(t."closeMonth", '')`;
  const rows = await db.$queryRaw<DealSumRow[]>`
    SELECT ${key} AS "key", t."stageId" AS "stageId", t."currency" AS "currency", SUM(t."deals") AS "count", SUM(t."value") AS "sum"
      FROM "DealTotal" t JOIN "DealStage" s ON s."id" = t."stageId"
     WHERE ${where([
       Prisma.sql`t."workspaceId" = ${workspaceOf(db)}`,
       Prisma.sql`s."pipelineId" = ${f.pipelineId}`,
       f.userId !== undefined && Prisma.sql`t."userId" = ${f.userId}`,
       // Deals without a date ('') are outside any range of dates.
       (f.expectedCloseFrom || f.expectedCloseTo) && Prisma.sql`t."closeMonth" <> ''`,
       f.expectedCloseFrom && Prisma.sql`t."closeMonth" >= ${f.expectedCloseFrom.slice(0, 7)}`,
       f.expectedCloseTo && Prisma.sql`t."closeMonth" <= ${f.expectedCloseTo.slice(0, 7)}`,
     ])}
     GROUP BY ${key}, t."stageId", t."currency"
    HAVING SUM(t."deals") <> 0`;
  return rows.map(dealSumOf);
}

async function dealSumsFromRows(db: Db, f: DealSumsFilter): Promise<DealSum[]> {
  const key =
    f.groupBy === 'stage' ? Prisma.sql`d."stageId"` : f.groupBy === 'user' ? Prisma.sql`d."userId"` : Prisma.sql`substr(d."expectedCloseDate", 1, 7)`;
  const rows = await db.$queryRaw<DealSumRow[]>`
    SELECT ${key} AS "key", d."stageId" AS "stageId", d."currency" AS "currency", COUNT(*) AS "count", ${tenThousandths(Prisma.sql`d."estimatedValue"`)} AS "sum"
      FROM "Deal" d JOIN "DealStage" s ON s."id" = d."stageId"
     WHERE ${where([
       Prisma.sql`d."workspaceId" = ${workspaceOf(db)}`,
       Prisma.sql`s."pipelineId" = ${f.pipelineId}`,
       f.userId !== undefined && Prisma.sql`d."userId" = ${f.userId}`,
       f.createdSince && Prisma.sql`d."createdAt" >= ${f.createdSince}`,
       f.expectedCloseFrom && Prisma.sql`d."expectedCloseDate" >= ${f.expectedCloseFrom}`,
       f.expectedCloseTo && Prisma.sql`d."expectedCloseDate" <= ${f.expectedCloseTo}`,
     ])}
     GROUP BY ${key}, d."stageId", d."currency"`;
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
 * The totals answer every payment report but one: grouped by link with a period
 * (PaymentLinkTotal knows no days). PaymentDayTotal's days are whole, as `from` and `to` are.
 */
const paymentTotalsAnswer = (f: PaymentSumsFilter) => f.groupBy !== 'payment_link' || (!f.from && !f.to);

/** The workspace's payment transactions summed per group and currency. */
export function paymentSums(db: Db, f: PaymentSumsFilter): Promise<PaymentSum[]> {
  return paymentTotalsAnswer(f) ? paymentSumsFromTotals(db, f) : paymentSumsFromRows(db, f);
}

async function paymentSumsFromTotals(db: Db, f: PaymentSumsFilter): Promise<PaymentSum[]> {
  const table = f.groupBy === 'payment_link' ? Prisma.sql`"PaymentLinkTotal"` : Prisma.sql`"PaymentDayTotal"`;
  const day = providerOf(db) === 'sqlite' ? Prisma.sql`t."day"` : Prisma.sql`t."day"::timestamp`;
  const key =
    f.groupBy === 'payment_link' ? Prisma.sql`t."paymentLinkId"` : f.groupBy === 'status' ? Prisma.sql`t."status"` : periodKey(db, f.groupBy, day);
  const rows = await db.$queryRaw<PaymentSumRow[]>`
    SELECT ${key} AS "key", t."currency" AS "currency", SUM(t."payments") AS "count", SUM(t."amount") AS "sum"
      FROM ${table} t
     WHERE ${where([
       Prisma.sql`t."workspaceId" = ${workspaceOf(db)}`,
       f.from && Prisma.sql`t."day" >= ${f.from}`,
       f.to && Prisma.sql`t."day" <= ${f.to}`,
       f.status !== undefined && Prisma.sql`t."status" = ${f.status}`,
       f.currency !== undefined && Prisma.sql`t."currency" = ${f.currency}`,
     ])}
     GROUP BY ${key}, t."currency"
    HAVING SUM(t."payments") <> 0`;
  return rows.map(paymentSumOf);
}

/** Also the tests' reference for the totals. */
export async function paymentSumsFromRows(db: Db, f: PaymentSumsFilter): Promise<PaymentSum[]> {
  const key =
    f.groupBy === 'status' ? Prisma.sql`t."status"` : f.groupBy === 'payment_link' ? Prisma.sql`t."paymentLinkId"` : periodKey(db, f.groupBy, Prisma.sql`t."createdAt"`);
  const rows = await db.$queryRaw<PaymentSumRow[]>`
    SELECT ${key} AS "key", t."currency" AS "currency", COUNT(*) AS "count", ${tenThousandths(Prisma.sql`t."amount"`)} AS "sum"
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
