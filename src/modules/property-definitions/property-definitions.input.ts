import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { evenAfterFailures, text } from '../../validation/rules.js';

export const PROPERTY_OBJECTS = ['contact', 'deal'] as const;
export const PROPERTY_TYPES = ['string', 'number', 'boolean', 'date', 'enum', 'phone'] as const;
export type PropertyObject = (typeof PROPERTY_OBJECTS)[number];
export type PropertyType = (typeof PROPERTY_TYPES)[number];

const fields = {
  object: z.enum(PROPERTY_OBJECTS),
  key: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, { message: 'The :attribute field must start with a lower-case letter and hold at most 64 of a-z, 0-9 and _.' }),
  label: text(255),
  type: z.enum(PROPERTY_TYPES),
  options: z.array(text(255)).max(200),
  isActive: z.boolean(),
};

/** Enum definitions need options; options never repeat. (Values may be unparsed here: see evenAfterFailures.) */
const optionsRule = (v: { type?: PropertyType; options?: unknown }, ctx: z.RefinementCtx) => {
  const options = Array.isArray(v.options) ? v.options : undefined;
  if (v.type === 'enum' && (!options || options.length === 0)) ctx.addIssue({ code: 'custom', path: ['options'], message: 'The :attribute field is required when type is enum.' });
  if (options && new Set(options).size !== options.length) ctx.addIssue({ code: 'custom', path: ['options'], message: 'The :attribute field has a duplicate value.' });
};

export const CreatePropertyDefinitionInput = z
  .object(fields)
  .partial({ options: true, isActive: true })
  .superRefine(optionsRule, evenAfterFailures);

/** What names a definition, unique in the workspace. */
export const DefinitionName = z.object({ object: fields.object, key: fields.key });

/** `object` and `key` name stored values, so they never change; `type` changes are checked against the stored options. */
export const UpdatePropertyDefinitionInput = z.object({ label: fields.label, type: fields.type, options: fields.options, isActive: fields.isActive }).partial();
export { optionsRule };

/** The list's sorting (API.md section 8). */
export const PROPERTY_DEFINITION_LIST = listSpec('property-definitions', 'PropertyDefinition');

export const PropertyDefinitionListArgs = z.object({ ...listRules, object: z.enum(PROPERTY_OBJECTS).optional() });
