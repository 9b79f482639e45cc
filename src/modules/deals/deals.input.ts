import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { calendarDate, decimal, idList, text } from '../../validation/rules.js';

const fields = {
  name: text(255),
  estimatedValue: decimal(),
  expectedCloseDate: calendarDate().nullable(),
  dealStageExternalId: z.string().min(1).max(64),
  userId: z.string().min(1).max(64),
  contactIds: idList(),
  productIds: idList(),
  // Keys and values are checked against the property definitions (properties.ts).
  properties: z.record(z.string(), z.unknown()),
};

export const CreateDealInput = z
  .object(fields)
  .partial({ estimatedValue: true, expectedCloseDate: true, contactIds: true, productIds: true, properties: true });
export const UpdateDealInput = z.object(fields).partial();

/** The list's sorting (API.md section 8). */
export const DEAL_LIST = listSpec('deals', 'Deal', ['name', 'estimated_value', 'expected_close_date']);

export const DealListArgs = z.object({
  ...listRules,
  pipelineId: z.string().max(64).optional(),
  dealStageExternalId: z.string().max(64).optional(),
});
