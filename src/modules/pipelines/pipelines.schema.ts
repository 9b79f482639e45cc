import { isForeignKeyViolation } from '../../db/errors.js';
import { newId } from '../../db/ids.js';
import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { createAndUpdateInputs, inputTypeFrom } from '../../graphql/inputs.js';
import { orNotFound } from '../../graphql/records.js';
import type { Context } from '../../graphql/context.js';
import { invalid, notFound } from '../../graphql/errors.js';
import type { FieldErrors } from '../../validation/messages.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { parseInput, parseInputReportingAll } from '../../validation/parse.js';
import { PIPELINE_LIST, CreatePipelineInput, PipelineListArgs, StageItemRules, StageMatchRules, type StageItem, UpdatePipelineInput, matchedStageValues, stageValues } from './pipelines.input.js';

export const DealStage = builder.prismaObject('DealStage', {
  fields: (t) => ({
    id: t.exposeID('id'),
    externalId: t.exposeID('externalId', { description: 'Given at creation, never changes; deals name their stage by it.' }),
    name: t.exposeString('name'),
    order: t.exposeInt('order'),
    color: t.exposeString('color'),
    probability: t.expose('probability', { type: 'Decimal' }),
    pipelineId: t.exposeID('pipelineId'),
    pipeline: t.relation('pipeline'),
    deals: t.relation('deals', { ...pagedRelation(t, { id: 'asc' }) }),
  }),
});

const STAGE_ORDER = [{ order: 'asc' as const }, { id: 'asc' as const }];

export const Pipeline = builder.prismaObject('Pipeline', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    isDefault: t.exposeBoolean('isDefault'),
    stages: t.relation('stages', { ...pagedRelation(t, STAGE_ORDER) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const PipelinePage = pageType('Pipeline', Pipeline);

const StageInput = inputTypeFrom('StageInput', StageItemRules, (t) => ({
  externalId: t.id({ description: 'Matches an existing stage of the pipeline; otherwise the name does.' }),
  name: t.string(),
  order: t.int(),
  color: t.string(),
  probability: t.field({ type: 'Decimal' }),
}));

const PipelineInputs = createAndUpdateInputs('Pipeline', { create: CreatePipelineInput, update: UpdatePipelineInput }, (t) => ({
  name: t.string(),
  description: t.string(),
  isDefault: t.boolean({ description: 'true makes this the workspace default and clears the flag elsewhere.' }),
  stages: t.field({ type: [StageInput], description: 'The whole new list of stages.' }),
}));

type Tx = Parameters<Parameters<Context['db']['$transaction']>[0]>[0];

/** Makes one pipeline the workspace's only default. */
async function makeDefault(tx: Tx, pipelineId: string) {
  await tx.pipeline.updateMany({ where: { isDefault: true, NOT: { id: pipelineId } }, data: { isDefault: false } });
  await tx.pipeline.update({ where: { id: pipelineId }, data: { isDefault: true } });
}

/**
 * How a new list of stages maps onto a pipeline's stored ones: items match by external
 * id, then by exact name; `removed` are the stored stages no item claims, and `busy` the
 * error for those that hold deals.
 */
async function planStages(db: Pick<Tx, 'dealStage'>, pipelineId: string, items: StageItem[]) {
  const existing = await db.dealStage.findMany({ where: { pipelineId }, include: { _count: { select: { deals: true } } } });
  const byExternalId = new Map(existing.map((s) => [s.externalId, s]));
  const byName = new Map(existing.map((s) => [s.name, s]));
  const claimed = new Set<string>();
  const plan = items.map((item, index) => {
    let stage = item.externalId ? byExternalId.get(item.externalId) : undefined;
    if (!stage || claimed.has(stage.id)) stage = byName.get(item.name);
    if (stage && claimed.has(stage.id)) stage = undefined;
    if (stage) claimed.add(stage.id);
    return stage ? { stage, values: matchedStageValues(item, index) } : { stage: undefined, values: stageValues(item, index) };
  });
  const removed = existing.filter((s) => !claimed.has(s.id));
  const held = removed.filter((s) => s._count.deals > 0);
  const busy: FieldErrors = held.length > 0 ? { stages: held.map((s) => `The stage "${s.name}" holds deals and cannot be removed.`) } : {};
  return { plan, removed, busy };
}

/**
 * Replaces a pipeline's stages with a new list: items match existing stages by
 * external id, then by exact name, and keep their ids (and the color and probability
 * an item leaves out); the rest are new; stages left out are deleted, unless a deal
 * sits in one (then nothing changes).
 */
async function replaceStages(ctx: Context, tx: Tx, pipelineId: string, items: StageItem[]) {
  const { plan, removed, busy } = await planStages(tx, pipelineId, items);
  if (Object.keys(busy).length > 0) throw invalid(busy);
  if (removed.length > 0) await tx.dealStage.deleteMany({ where: { id: { in: removed.map((s) => s.id) } } });
  // Renames may swap names between kept stages: park them under unique names first.
  const renamed = plan.filter((p) => p.stage && p.stage.name !== p.values.name);
  for (const p of renamed) await tx.dealStage.update({ where: { id: p.stage!.id }, data: { name: `~renaming~${p.stage!.id}` } });
  for (const p of plan) {
    if (p.stage) await tx.dealStage.update({ where: { id: p.stage.id }, data: p.values });
    else await tx.dealStage.create({ data: { ...p.values, ...newRow(ctx.workspace.id), pipelineId, externalId: newId() } });
  }
}

builder.queryFields((t) => ({
  pipeline: t.prismaField({
    type: Pipeline,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.pipeline.findUnique({ ...query, where: { id } }), 'Pipeline'),
  }),
  pipelines: t.field({
    type: PipelinePage,
    args: listArgs(t, PIPELINE_LIST),
    resolve: (_root, args, ctx, info) => {
      const { ...listing } = parseInput(PipelineListArgs, { ...listInput(args) }, ctx);
      return paginate(ctx.db.pipeline, PIPELINE_LIST, { ...listing, where: {} }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createPipeline: t.prismaField({
    type: Pipeline,
    args: { input: t.arg({ type: PipelineInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const { stages = [], isDefault, ...data } = parseInput(CreatePipelineInput, input, ctx);
      const id = await ctx.db.$transaction(async (tx) => {
        // The first pipeline of a workspace is its default.
        const first = (await tx.pipeline.count()) === 0;
        const row = newRow(ctx.workspace.id);
        await tx.pipeline.create({
          data: {
            ...data,
            ...row,
            stages: { create: stages.map((item, index) => ({ ...stageValues(item, index), ...newRow(ctx.workspace.id), externalId: newId() })) },
          },
        });
        if (first || isDefault) await makeDefault(tx, row.id);
        return row.id;
      });
      return ctx.db.pipeline.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  updatePipeline: t.prismaField({
    type: Pipeline,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: PipelineInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.pipeline.findUnique({ where: { id }, select: { id: true } }))) throw notFound('Pipeline');
      // A request refused anyway also learns which stages it may not remove (checked again
      // in the transaction): matching needs only each item's name and external id.
      const busyStages = async () => {
        const items = StageMatchRules.safeParse(input.stages);
        return items.success && items.data ? (await planStages(ctx.db, id, items.data)).busy : {};
      };
      const { stages, isDefault, ...data } = await parseInputReportingAll(UpdatePipelineInput, input, ctx, busyStages);
      await ctx.db.$transaction(async (tx) => {
        // New stages are a change of the pipeline: its updated_at moves even when nothing else is sent.
        await tx.pipeline.update({ where: { id }, data: stages ? { ...data, updatedAt: new Date() } : data });
        if (stages) await replaceStages(ctx, tx, id, stages);
        // `false` never leaves the workspace without a default: another pipeline takes the flag by being set true.
        if (isDefault) await makeDefault(tx, id);
      });
      return ctx.db.pipeline.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  deletePipeline: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      const pipeline = await ctx.db.pipeline.findUnique({ where: { id }, select: { isDefault: true } });
      if (!pipeline) throw notFound('Pipeline');
      await ctx.db
        .$transaction(async (tx) => {
          // Stages cascade with the pipeline; a deal in one restricts the delete, in this same statement.
          await tx.pipeline.delete({ where: { id } });
          // The oldest remaining pipeline inherits the default flag.
          const next = pipeline.isDefault ? await tx.pipeline.findFirst({ orderBy: { id: 'asc' }, select: { id: true } }) : null;
          if (next) await makeDefault(tx, next.id);
        })
        .catch((error) => Promise.reject(isForeignKeyViolation(error) ? invalid({ id: ['The pipeline holds deals and cannot be deleted.'] }) : error));
      return id;
    },
  }),
}));
