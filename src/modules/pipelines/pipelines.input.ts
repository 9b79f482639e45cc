import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { longText, percentage, text } from '../../validation/rules.js';

export const DEFAULT_STAGE_COLOR = '#9CA3AF';

export const StageItemRules = z.object({
  externalId: z.string().max(64).nullable().optional(),
  name: text(255),
  order: z.number().int().min(-1_000_000).max(1_000_000).nullable().optional(),
  color: z.string().trim().min(1).max(32).nullable().optional(),
  probability: percentage().nullable().optional(),
});

const MAX_STAGES = 100;

/** The whole list of stages; names are unique within a pipeline. */
const stages = z
  .array(StageItemRules)
  .max(MAX_STAGES)
  .superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (seen.has(item.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: 'The :attribute field has a duplicate value.' });
      seen.add(item.name);
    });
  });

const fields = {
  name: text(255),
  description: longText().nullable(),
  isDefault: z.boolean(),
  stages,
};

export const CreatePipelineInput = z.object(fields).partial({ description: true, isDefault: true, stages: true });
export const UpdatePipelineInput = z.object(fields).partial();
/** The list's sorting (API.md section 8). */
export const PIPELINE_LIST = listSpec('pipelines', 'Pipeline');

export const PipelineListArgs = z.object(listRules);

export type StageItem = z.output<typeof StageItemRules>;

/** What matching a list's items to stored stages reads of them (their other fields may be refused). */
export const StageMatchRules = z.array(StageItemRules.pick({ externalId: true, name: true })).max(MAX_STAGES).nullish();

/** A new stage's stored values, defaults filled in (also for null): `order` is its index. */
export const stageValues = (item: StageItem, index: number) => ({
  name: item.name,
  order: item.order ?? index,
  color: item.color ?? DEFAULT_STAGE_COLOR,
  probability: item.probability ?? 0,
});

/**
 * What a PUT's item writes to the existing stage it matched: `name` and `order` (its
 * index unless given) as for a new stage; `color` and `probability` only when the item
 * sends them (null: the default), so a rename keeps them.
 */
export function matchedStageValues(item: StageItem, index: number) {
  const { color, probability, ...always } = stageValues(item, index);
  return { ...always, ...(item.color !== undefined && { color }), ...(item.probability !== undefined && { probability }) };
}
