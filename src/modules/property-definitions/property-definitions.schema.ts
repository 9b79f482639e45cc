import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import { notFound } from '../../graphql/errors.js';
import { listArgs, listInput, pageType, paginate } from '../../graphql/pagination.js';
import { parseInput, parseInputReportingAll } from '../../validation/parse.js';
import { uniqueValue } from '../../validation/unique.js';
import { evenAfterFailures } from '../../validation/rules.js';
import {
  PROPERTY_DEFINITION_LIST,
  CreatePropertyDefinitionInput,
  DefinitionName,
  PROPERTY_OBJECTS,
  PROPERTY_TYPES,
  type PropertyType,
  PropertyDefinitionListArgs,
  UpdatePropertyDefinitionInput,
  optionsRule,
} from './property-definitions.input.js';

export const PropertyObjectEnum = builder.enumType('PropertyObject', { values: PROPERTY_OBJECTS });
export const PropertyTypeEnum = builder.enumType('PropertyType', { values: PROPERTY_TYPES });

export const PropertyDefinition = builder.prismaObject('PropertyDefinition', {
  fields: (t) => ({
    id: t.exposeID('id'),
    object: t.field({ type: PropertyObjectEnum, resolve: (d) => d.object as never }),
    key: t.exposeString('key'),
    label: t.exposeString('label'),
    type: t.field({ type: PropertyTypeEnum, resolve: (d) => d.type as never }),
    options: t.stringList({ resolve: (d) => (d.options as string[]) ?? [] }),
    isActive: t.exposeBoolean('isActive'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const PropertyDefinitionPage = pageType('PropertyDefinition', PropertyDefinition);

const PropertyDefinitionInputs = createAndUpdateInputs('PropertyDefinition', { create: CreatePropertyDefinitionInput, update: UpdatePropertyDefinitionInput }, (t) => ({
  object: t.field({ type: PropertyObjectEnum }),
  key: t.string(),
  label: t.string(),
  type: t.field({ type: PropertyTypeEnum }),
  options: t.stringList(),
  isActive: t.boolean(),
}));

const PropertyDefinitionFilter = builder.inputType('PropertyDefinitionFilter', {
  fields: (t) => ({ object: t.field({ type: PropertyObjectEnum }) }),
});

const uniqueKey = uniqueValue('key', DefinitionName, (ctx, name) => ctx.db.propertyDefinition.findFirst({ where: name, select: { id: true } }));

builder.queryFields((t) => ({
  propertyDefinition: t.prismaField({
    type: PropertyDefinition,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.propertyDefinition.findUnique({ ...query, where: { id } }), 'Property definition'),
  }),
  propertyDefinitions: t.field({
    type: PropertyDefinitionPage,
    args: { ...listArgs(t, PROPERTY_DEFINITION_LIST), filter: t.arg({ type: PropertyDefinitionFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { object, ...listing } = parseInput(PropertyDefinitionListArgs, { ...args.filter, ...listInput(args) }, ctx);
      return paginate(ctx.db.propertyDefinition, PROPERTY_DEFINITION_LIST, { ...listing, where: { object } }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createPropertyDefinition: t.prismaField({
    type: PropertyDefinition,
    args: { input: t.arg({ type: PropertyDefinitionInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const data = await parseInputReportingAll(CreatePropertyDefinitionInput, input, ctx, () => uniqueKey.probe(ctx, { object: input.object, key: input.key }));
      const options = data.type === 'enum' ? data.options! : [];
      return ctx.db.propertyDefinition.create({ ...query, data: { ...data, options, ...newRow(ctx.workspace.id) } }).catch((e) => Promise.reject(uniqueKey.taken(e)));
    },
  }),
  updatePropertyDefinition: t.prismaField({
    type: PropertyDefinition,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: PropertyDefinitionInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      const existing = await ctx.db.propertyDefinition.findUnique({ where: { id } });
      if (!existing) throw notFound('Property definition');
      // The options rule applies to the definition as it will be, sent fields over stored ones.
      const data = parseInput(
        UpdatePropertyDefinitionInput.superRefine(
          (v, refine) => optionsRule({ type: v.type ?? (existing.type as PropertyType), options: v.options ?? (existing.options as string[]) }, refine),
          evenAfterFailures,
        ),
        input,
        ctx,
      );
      const type = data.type ?? (existing.type as PropertyType);
      const options = type === 'enum' ? (data.options ?? (existing.options as string[])) : [];
      return ctx.db.propertyDefinition.update({ ...query, where: { id }, data: { ...data, options } });
    },
  }),
  deletePropertyDefinition: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.propertyDefinition, id, 'Property definition'),
  }),
}));

