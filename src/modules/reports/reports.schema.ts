import { builder } from '../../graphql/builder.js';
import { type Context, longReadsOf } from '../../graphql/context.js';
import { invalid } from '../../graphql/errors.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import { fromTenThousandths, weightedTotal } from '../../payments/money.js';
import { Messages } from '../../validation/messages.js';
import { parseInput } from '../../validation/parse.js';
import { PaymentStatusEnum } from '../payment-transactions/payment-transactions.schema.js';
import { PAYMENT_STATUSES } from '../payment-transactions/payment-transactions.input.js';
import { DEAL_REPORT_GROUPS, DealReportArgs, PAYMENT_REPORT_GROUPS, PaymentReportArgs } from './reports.input.js';
import { type DealSum, dealSums, paymentSums } from './reports.queries.js';

/** A row of a report: one group in one currency (API.md section 10). */
interface ReportRow {
  group: unknown;
  currency: string;
  count: number;
  total: Prisma.Decimal;
  weightedTotal?: Prisma.Decimal;
}

type RowFieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<typeof builder.$inferSchemaTypes, ReportRow>;

/** The fields both reports' rows have. */
const rowFields = (t: RowFieldBuilder) => ({
  group: t.field({
    type: 'JSON',
    nullable: true,
    description:
      'The group, as the REST report shows it: `{id, external_id, name}` for a stage, `{id, name}` for a user or a payment link, `YYYY-MM` for a month, the Monday `YYYY-MM-DD` for a week, `YYYY-MM-DD` for a day, or the status; null for deals without an expected close date.',
    resolve: (r) => r.group,
  }),
  currency: t.exposeString('currency'),
  count: t.exposeInt('count'),
  total: t.field({ type: 'Decimal', description: 'The exact sum, computed by the database.', resolve: (r) => r.total }),
});

const DealReportRow = builder.objectRef<ReportRow>('DealReportRow').implement({
  fields: (t) => ({
    ...rowFields(t),
    weightedTotal: t.field({
      type: 'Decimal',
      description: "Σ estimated value × the stage's probability / 100, rounded half up once to the currency's minor unit.",
      resolve: (r) => r.weightedTotal!,
    }),
  }),
});
const PaymentReportRow = builder.objectRef<ReportRow>('PaymentReportRow').implement({ fields: (t) => rowFields(t) });

const DealReport = builder.objectRef<{ data: ReportRow[] }>('DealReport').implement({
  fields: (t) => ({ data: t.field({ type: [DealReportRow], resolve: (r) => r.data }) }),
});
const PaymentReport = builder.objectRef<{ data: ReportRow[] }>('PaymentReport').implement({
  fields: (t) => ({ data: t.field({ type: [PaymentReportRow], resolve: (r) => r.data }) }),
});

const DealReportGroup = builder.enumType('DealReportGroup', { values: DEAL_REPORT_GROUPS });
const PaymentReportGroup = builder.enumType('PaymentReportGroup', { values: PAYMENT_REPORT_GROUPS });

const DealReportFilter = builder.inputType('DealReportFilter', {
  fields: (t) => ({
    groupBy: t.field({ type: DealReportGroup, description: 'Default `stage`.' }),
    pipelineId: t.id({ description: "Default: the workspace's default pipeline." }),
    userId: t.id({ description: 'Only deals this user owns.' }),
    createdSince: t.field({ type: 'DateTime', description: 'Only deals created at or after this time.' }),
    expectedCloseFrom: t.field({ type: 'Date', description: 'Only deals expected to close on or after this date.' }),
    expectedCloseTo: t.field({ type: 'Date', description: 'Only deals expected to close on or before this date.' }),
  }),
});

const PaymentReportFilter = builder.inputType('PaymentReportFilter', {
  fields: (t) => ({
    groupBy: t.field({ type: PaymentReportGroup, description: 'Default `month`.' }),
    from: t.field({ type: 'Date', description: 'Only transactions created on or after this day (UTC).' }),
    to: t.field({ type: 'Date', description: 'Only transactions created on or before this day (UTC).' }),
    status: t.field({ type: PaymentStatusEnum }),
    currency: t.string({ description: 'Only transactions in this currency.' }),
  }),
});

/** Groups, then currencies, in the order given for the groups (unknown keys last: a null month). */
function inOrder(rows: ReportRow[], keyOf: (row: ReportRow) => string | null, order: readonly (string | null)[]): ReportRow[] {
  const rank = new Map(order.map((key, i) => [key, i]));
  const at = (row: ReportRow) => rank.get(keyOf(row)) ?? order.length;
  return rows.sort((a, b) => at(a) - at(b) || (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
}

/** The sums per group and currency, a weighted total each (stages differ within a group unless grouped by stage). */
function dealRows(sums: DealSum[], probabilityOf: Map<string, Prisma.Decimal>, groupOf: (key: string | null) => unknown): ReportRow[] {
  const groups = new Map<string, { key: string | null; currency: string; count: number; parts: DealSum[] }>();
  for (const sum of sums) {
    const id = JSON.stringify([sum.key, sum.currency]);
    const group = groups.get(id) ?? groups.set(id, { key: sum.key, currency: sum.currency, count: 0, parts: [] }).get(id)!;
    group.count += sum.count;
    group.parts.push(sum);
  }
  return [...groups.values()].map((g) => ({
    group: groupOf(g.key),
    currency: g.currency,
    count: g.count,
    total: fromTenThousandths(g.parts.reduce((total, part) => total + part.sum, 0n)),
    weightedTotal: weightedTotal(g.parts.map((part) => ({ amount: part.sum, percent: probabilityOf.get(part.stageId)! })), g.currency),
  }));
}

async function dealReport(ctx: Context, filter: unknown) {
  const args = parseInput(DealReportArgs, filter ?? {}, ctx);
  const pipeline = args.pipelineId
    ? await ctx.db.pipeline.findUnique({ where: { id: args.pipelineId }, select: { id: true } })
    : await ctx.db.pipeline.findFirst({ where: { isDefault: true }, select: { id: true } });
  if (!pipeline) {
    if (args.pipelineId) throw invalid({ pipeline_id: [Messages.unknownId('pipeline_id')] });
    return { data: [] }; // no pipeline yet: nothing to report
  }
  if (args.userId && !(await ctx.db.user.findUnique({ where: { id: args.userId }, select: { id: true } }))) {
    throw invalid({ user_id: [Messages.unknownId('user_id')] });
  }
  const [sums, stages] = await Promise.all([
    dealSums(longReadsOf(ctx), { ...args, pipelineId: pipeline.id }),
    ctx.db.dealStage.findMany({ where: { pipelineId: pipeline.id }, orderBy: [{ order: 'asc' }, { id: 'asc' }], select: { id: true, externalId: true, name: true, probability: true } }),
  ]);
  const probabilityOf = new Map(stages.map((s) => [s.id, s.probability]));
  if (args.groupBy === 'stage') {
    const stageOf = new Map(stages.map((s) => [s.id, { id: s.id, external_id: s.externalId, name: s.name }]));
    const rows = dealRows(sums, probabilityOf, (key) => stageOf.get(key!));
    return { data: inOrder(rows, (r) => (r.group as { id: string }).id, stages.map((s) => s.id)) };
  }
  if (args.groupBy === 'user') {
    const ids = [...new Set(sums.map((s) => s.key!))];
    const users = await ctx.db.user.findMany({ where: { id: { in: ids } }, orderBy: [{ name: 'asc' }, { id: 'asc' }], select: { id: true, name: true } });
    const userOf = new Map(users.map((u) => [u.id, u]));
    return { data: inOrder(dealRows(sums, probabilityOf, (key) => userOf.get(key!)), (r) => (r.group as { id: string }).id, users.map((u) => u.id)) };
  }
  const rows = dealRows(sums, probabilityOf, (key) => key);
  const months = [...new Set(sums.map((s) => s.key).filter((k): k is string => k !== null))].sort();
  return { data: inOrder(rows, (r) => r.group as string | null, months) };
}

async function paymentReport(ctx: Context, filter: unknown) {
  const args = parseInput(PaymentReportArgs, filter ?? {}, ctx);
  const sums = await paymentSums(longReadsOf(ctx), args);
  const rows: ReportRow[] = sums.map((s) => ({ group: s.key, currency: s.currency, count: s.count, total: fromTenThousandths(s.sum) }));
  if (args.groupBy === 'payment_link') {
    const links = await ctx.db.paymentLink.findMany({
      where: { id: { in: [...new Set(sums.map((s) => s.key))] } },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
      select: { id: true, name: true },
    });
    const linkOf = new Map(links.map((l) => [l.id, l]));
    for (const row of rows) row.group = linkOf.get(row.group as string);
    return { data: inOrder(rows, (r) => (r.group as { id: string }).id, links.map((l) => l.id)) };
  }
  const order = args.groupBy === 'status' ? PAYMENT_STATUSES : [...new Set(sums.map((s) => s.key))].sort();
  return { data: inOrder(rows, (r) => r.group as string, order) };
}

builder.queryFields((t) => ({
  dealReport: t.field({
    type: DealReport,
    description: "A pipeline's deals per stage, owner or expected close month, per currency: count, total and weighted total.",
    args: { filter: t.arg({ type: DealReportFilter }) },
    resolve: (_root, { filter }, ctx) => dealReport(ctx, filter),
  }),
  paymentReport: t.field({
    type: PaymentReport,
    description: 'Payment transactions per day, week, month, status or payment link, per currency: count and total.',
    args: { filter: t.arg({ type: PaymentReportFilter }) },
    resolve: (_root, { filter }, ctx) => paymentReport(ctx, filter),
  }),
}));
