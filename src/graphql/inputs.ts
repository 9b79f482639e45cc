import { z } from 'zod';
import { builder } from './builder.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type FieldBuilder = PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>;
type Fields = Record<string, PothosSchemaTypes.InputFieldRef<Types, unknown>>;

/** A field the rules refuse both missing and null: the one kind GraphQL can mark non-null. */
function requires(rules: z.ZodObject, key: string): boolean {
  const rule = rules.shape[key];
  return rule !== undefined && !rule.safeParse(undefined).success && !rule.safeParse(null).success;
}

/** Each input type's zod rules by type name: what a request body is checked against (the OpenAPI document reads it). */
export const inputRules = new Map<string, z.ZodObject>();

/**
 * A GraphQL input type drawn from its zod rules: it has the fields the rules know,
 * and a field is non-null exactly where the rules require it. So requiredness is
 * written once, in the rules, and typed clients see it in the schema.
 */
export function inputTypeFrom<F extends Fields>(name: string, rules: z.ZodObject, fields: (t: FieldBuilder) => F) {
  inputRules.set(name, rules);
  return builder.inputType(name, {
    fields: (t) => {
      const known = Object.entries(fields(t)).filter(([key]) => key in rules.shape);
      for (const [key, ref] of known) {
        if (requires(rules, key)) ref.updateConfig((config) => ({ ...config, type: { ...config.type, required: true } }));
      }
      return Object.fromEntries(known) as F;
    },
  });
}

/**
 * A resource's `Create<Name>Input` and `Update<Name>Input` from one field list and the
 * two rule sets: a create's required fields are non-null, an update's are optional.
 */
export function createAndUpdateInputs<F extends Fields>(name: string, rules: { create: z.ZodObject; update: z.ZodObject }, fields: (t: FieldBuilder) => F) {
  return {
    create: inputTypeFrom(`Create${name}Input`, rules.create, fields),
    update: inputTypeFrom(`Update${name}Input`, rules.update, fields),
  };
}

/**
 * The same two, and the item of the resource's update batch (`Update<Plural>Item`,
 * src/graphql/batch.ts): the record's `id` and the update's fields.
 */
export function batchInputs<F extends Fields>(name: string, plural: string, rules: { create: z.ZodObject; update: z.ZodObject }, fields: (t: FieldBuilder) => F) {
  return {
    ...createAndUpdateInputs(name, rules, fields),
    updateItem: inputTypeFrom(`Update${plural}Item`, rules.update.extend({ id: z.string() }), (t) => ({ id: t.id({ required: true, description: 'The record to update.' }), ...fields(t) })),
  };
}
