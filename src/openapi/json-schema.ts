import {
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
import { z } from 'zod';
import { snakeCase } from '../validation/messages.js';

export type JsonSchema = Record<string, unknown>;

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** Our scalars on the wire (src/graphql/scalars.ts). */
const SCALARS: Record<string, JsonSchema> = {
  ID: { type: 'string' },
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  Int: { type: 'integer', format: 'int32' },
  SafeInt: { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
  Float: { type: 'number' },
  Decimal: { type: 'number' },
  Date: { type: 'string', format: 'date' },
  DateTime: { type: 'string', format: 'date-time' },
  JSON: {},
};

export function scalarSchema(name: string): JsonSchema {
  const schema = SCALARS[name];
  if (!schema) throw new Error(`The OpenAPI document has no JSON Schema for the scalar ${name}.`);
  return { ...schema };
}

/** The same schema, null allowed too. */
export function orNull(schema: JsonSchema): JsonSchema {
  if (Object.keys(schema).length === 0 || (Array.isArray(schema.type) && schema.type.includes('null'))) return schema;
  if (typeof schema.type === 'string' && !schema.$ref) {
    const nullable: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum)) nullable.enum = [...schema.enum, null];
    return nullable;
  }
  const { description, ...rest } = schema;
  return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: 'null' }] };
}

/** A GraphQL input type as JSON Schema, for what zod cannot say (and query parameters): snake_case keys. */
function graphqlInputSchema(type: GraphQLInputType): JsonSchema {
  if (isNonNullType(type)) return graphqlInputSchema(type.ofType);
  return orNull(namedOrList(type));
}

/** The same without null: a parameter is a value or absent. */
export function namedOrList(type: GraphQLInputType): JsonSchema {
  if (isNonNullType(type)) return namedOrList(type.ofType);
  if (isListType(type)) return { type: 'array', items: graphqlInputSchema(type.ofType) };
  if (isEnumType(type)) return ref(type.name);
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const required = fields.filter((f) => isNonNullType(f.type)).map((f) => snakeCase(f.name));
    return {
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [snakeCase(f.name), describe(graphqlInputSchema(f.type), f.description)])),
      ...(required.length ? { required } : {}),
    };
  }
  return scalarSchema(type.name);
}

/** An enum type's schema (a component, so clients get one named type). */
export function enumSchema(type: GraphQLNamedType): JsonSchema {
  if (!isEnumType(type)) throw new Error(`${type.name} is not an enum.`);
  return { type: 'string', enum: type.getValues().map((v) => v.name), ...(type.description ? { description: type.description } : {}) };
}

export const describe = (schema: JsonSchema, description: string | null | undefined): JsonSchema =>
  description && schema.description === undefined ? { ...schema, description } : schema;

const FALLBACK = 'x-graphql-fallback';

/**
 * Request bodies: every input type's zod rules as JSON Schema (`io: 'input'`: what a
 * client sends, defaults optional), one component per input type, with references
 * between them. The GraphQL input type is walked beside it: keys become the wire's
 * snake_case names, keys GraphQL does not take are dropped (the adapter ignores
 * them), dates get their format, field descriptions are added, and what zod cannot
 * represent (a `z.date()` behind a DateTime) is described from the GraphQL type.
 */
export function inputSchemas(schema: GraphQLSchema, rules: Map<string, z.ZodObject>): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [name, rule] of rules) if (schema.getType(name)) registry.add(rule, { id: name });
  const converted = z.toJSONSchema(registry, {
    io: 'input',
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: () => ({ [FALLBACK]: true }),
  });
  const out: Record<string, JsonSchema> = {};
  for (const [name, json] of Object.entries(converted.schemas)) {
    const { $schema: _schema, $id: _id, ...rest } = json as JsonSchema;
    out[name] = align(rest, schema.getType(name) as GraphQLInputType);
  }
  return out;
}

function align(json: JsonSchema, type: GraphQLInputType): JsonSchema {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (json[FALLBACK]) return namedOrList(inner);
  if (typeof json.$ref === 'string') return json;
  const out: JsonSchema = { ...json };
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(json[key])) out[key] = (json[key] as JsonSchema[]).map((member) => align(member, inner));
  }
  if (isListType(inner) && json.items && typeof json.items === 'object') out.items = align(json.items as JsonSchema, inner.ofType);
  if (isInputObjectType(inner) && json.properties) {
    const fields = inner.getFields();
    const properties: JsonSchema = {};
    for (const [key, property] of Object.entries(json.properties as Record<string, JsonSchema>)) {
      const field = fields[key];
      if (field) properties[snakeCase(key)] = describe(align(property, field.type), field.description);
    }
    out.properties = properties;
    const required = ((json.required as string[] | undefined) ?? []).filter((key) => key in fields).map(snakeCase);
    if (required.length) out.required = required;
    else delete out.required;
  }
  // zod sees a Date or DateTime as the string GraphQL parsed it from: add the format.
  if (isScalarType(inner) && (inner.name === 'Date' || inner.name === 'DateTime')) return withFormat(out, scalarSchema(inner.name).format as string);
  return out;
}

function withFormat(json: JsonSchema, format: string): JsonSchema {
  const stringy = json.type === 'string' || (Array.isArray(json.type) && json.type.includes('string'));
  if (stringy && json.format === undefined) return { ...json, format };
  return json;
}
