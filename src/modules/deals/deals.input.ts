import { z } from 'zod';
import { pageRules } from '../../graphql/pagination.js';
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

export const DealListArgs = z.object({
  ...pageRules,
  pipelineId: z.string().max(64).optional(),
  dealStageExternalId: z.string().max(64).optional(),
});
