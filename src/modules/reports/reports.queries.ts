import { type Db, providerOf } from '../../db/client.js';
import { workspaceOf } from '../../db/tenancy.js';
import { Prisma } from '../../generated/sqlite/client.js';
import type { DEAL_REPORT_GROUPS, PAYMENT_REPORT_GROUPS } from './reports.input.js';

/**
 * The reports' GROUP BY statements (API.md section 10). Sums are the database's, exact:
 * SUM(ROUND(x * 10000)) as an integer of ten-thousandths (see `fromTenThousandths`), the
 * same statement on both databases; only the calendar functions differ by dialect.
 */

/** A sum as the driver returns it (a bigint or number on SQLite, a Decimal on PostgreSQL), exactly. */
const exactInteger = (value: unknown): bigint => BigInt(String(value ?? 0));

const tenThousandths = (column: Prisma.Sql) => Prisma.sql`SUM(CAST(ROUND(${column} * 10000) AS BIGINT))`;

const where = (conditions: (Prisma.Sql | false | '' | undefined)[]) => Prisma.join(conditions.filter((c): c is Prisma.Sql => !!c), ' AND ');

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

/** The pipeline's deals summed per group, stage and currency (the stage carries the weight). */
export async function dealSums(db: Db, f: DealSumsFilter): Promise<DealSum[]> {
  const key =
    f.groupBy === 'stage' ? Prisma.sql`d."stageId"` : f.groupBy === 'user' ? Prisma.sql`d."userId"` : Prisma.sql`substr(d."expectedCloseDate", 1, 7)`;
  const rows = await db.$queryRaw<{ key: string | null; stageId: string; currency: string; count: unknown; sum: unknown }[]>`
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
  return rows.map((r) => ({ key: r.key, stageId: r.stageId, currency: r.currency, count: Number(r.count), sum: exactInteger(r.sum) }));
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
  /** `created_at` at or after, and before. */
  since?: Date;
  before?: Date;
  status?: string;
  currency?: string;
}

/** The calendar keys of `created_at` (UTC). SQLite stores it as ISO 8601 text, PostgreSQL as a timestamp. */
function periodKey(db: Db, groupBy: 'day' | 'week' | 'month'): Prisma.Sql {
  if (providerOf(db) === 'sqlite') {
    if (groupBy === 'day') return Prisma.sql`substr(t."createdAt", 1, 10)`;
    if (groupBy === 'month') return Prisma.sql`substr(t."createdAt", 1, 7)`;
    // The Sunday on or after the day, then back to its Monday.
    return Prisma.sql`date(substr(t."createdAt", 1, 10), 'weekday 0', '-6 days')`;
  }
  if (groupBy === 'day') return Prisma.sql`to_char(t."createdAt", 'YYYY-MM-DD')`;
  if (groupBy === 'month') return Prisma.sql`to_char(t."createdAt", 'YYYY-MM')`;
  return Prisma.sql`to_char(date_trunc('week', t."createdAt"), 'YYYY-MM-DD')`;
}

/** The workspace's payment transactions summed per group and currency. */
export async function paymentSums(db: Db, f: PaymentSumsFilter): Promise<PaymentSum[]> {
  const key =
    f.groupBy === 'status' ? Prisma.sql`t."status"` : f.groupBy === 'payment_link' ? Prisma.sql`t."paymentLinkId"` : periodKey(db, f.groupBy);
  const rows = await db.$queryRaw<{ key: string; currency: string; count: unknown; sum: unknown }[]>`
    SELECT ${key} AS "key", t."currency" AS "currency", COUNT(*) AS "count", ${tenThousandths(Prisma.sql`t."amount"`)} AS "sum"
      FROM "PaymentTransaction" t
     WHERE ${where([
       Prisma.sql`t."workspaceId" = ${workspaceOf(db)}`,
       f.since && Prisma.sql`t."createdAt" >= ${f.since}`,
       f.before && Prisma.sql`t."createdAt" < ${f.before}`,
       f.status !== undefined && Prisma.sql`t."status" = ${f.status}`,
       f.currency !== undefined && Prisma.sql`t."currency" = ${f.currency}`,
     ])}
     GROUP BY ${key}, t."currency"`;
  return rows.map((r) => ({ key: r.key, currency: r.currency, count: Number(r.count), sum: exactInteger(r.sum) }));
}
