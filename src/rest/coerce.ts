import {
  GRAPHQL_MAX_INT,
  GRAPHQL_MIN_INT,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  typeFromAST,
} from 'graphql';
import type { z } from 'zod';
import { type FieldErrors, noFieldErrors } from '../validation/messages.js';
import { pageRules } from '../graphql/pagination.js';
import { unstorable } from '../validation/json-values.js';
import { Messages, fieldErrorsFrom, snakeCase } from '../validation/messages.js';

/** What each scalar is called in a "must be ..." message. */
const EXPECTED: Record<string, string> = {
  String: 'string',
  ID: 'string',
  Int: 'int',
  Float: 'number',
  Decimal: 'number',
  Boolean: 'boolean',
  Date: 'date',
  DateTime: 'date',
};

/** Query strings carry text only; these scalars are read from their usual spellings. */
function fromQueryText(scalar: string, value: string): unknown {
  if ((scalar === 'Int' && /^-?\d{1,15}$/.test(value)) || ((scalar === 'Float' || scalar === 'Decimal') && /^-?\d+(\.\d+)?$/.test(value))) return Number(value);
  if (scalar === 'Boolean' && /^(true|false|1|0)$/.test(value)) return value === 'true' || value === '1';
  return value;
}

/** The rules of the query parameters that carry an Int, by parameter name. */
const QUERY_INT_RULES: Record<string, z.ZodType> = { page: pageRules.page, per_page: pageRules.perPage };

/**
 * Why a query parameter's integer beyond GraphQL's Int (32 bits) is refused: it IS an
 * integer, so not "must be an integer" but the bound it breaks. The parameter's rule is
 * asked about the first value past Int on that side (page: "must not be greater than
 * 2147483647."; per_page: "... than 100."); without a rule, Int's own bound.
 */
function beyondIntMessages(field: string, above: boolean): string[] {
  const issues = QUERY_INT_RULES[field]?.safeParse(above ? GRAPHQL_MAX_INT + 1 : GRAPHQL_MIN_INT - 1).error?.issues;
  const fromRule = issues ? fieldErrorsFrom(issues, [field])[field] : undefined;
  return fromRule ?? [above ? Messages.max(field, GRAPHQL_MAX_INT) : Messages.min(field, GRAPHQL_MIN_INT)];
}

/**
 * A value GraphQL accepts for a required field the request left out or got wrong. It
 * only lets the operation run, so validation reports every problem at once; the type
 * error recorded for the field makes parseInput refuse the input, so it is never stored.
 */
function standIn(type: GraphQLInputType): unknown {
  if (isNonNullType(type)) return standIn(type.ofType);
  if (isListType(type)) return [];
  if (isEnumType(type)) return type.getValues()[0]!.name;
  if (isInputObjectType(type)) {
    return Object.fromEntries(Object.values(type.getFields()).flatMap((f) => (isNonNullType(f.type) ? [[f.name, standIn(f.type)]] : [])));
  }
  for (const candidate of ['', 0, false, '1970-01-01T00:00:00.000Z', '1970-01-01', {}]) {
    try {
      type.parseValue(candidate);
      return candidate;
    } catch {
      // not this one
    }
  }
  throw new Error(`No stand-in value for the scalar ${type.name}.`);
}

/**
 * Turns a REST request's values into an operation's variables, guided by the
 * variables' GraphQL types: snake_case keys become the input fields, and every wrong
 * JSON type is recorded under its snake_case path and left out, so validation can
 * report it together with every other problem (instead of GraphQL refusing the
 * whole request at its first wrong value). Unknown body fields are ignored, as
 * API.md asks; unknown query parameters are refused.
 */
export function coerceVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  raw: Record<string, unknown>,
  source: 'body' | 'query',
): { variables: Record<string, unknown>; errors: FieldErrors } {
  const errors = noFieldErrors();
  const fail = (path: string[], message: string) => {
    (errors[path.join('.')] ??= []).push(message);
  };

  function walk(type: GraphQLInputType, value: unknown, path: string[], fromQuery: boolean): { ok: boolean; value?: unknown } {
    const field = path.join('.');
    if (isNonNullType(type)) {
      if (value === null || value === undefined) return fail(path, Messages.required(field)), { ok: false };
      return walk(type.ofType, value, path, fromQuery);
    }
    if (value === null) return { ok: true, value: null };
    if (isListType(type)) {
      // A query string's list is comma-separated (`types=contacts,deals`).
      if (fromQuery && typeof value === 'string') value = value.split(',');
      if (!Array.isArray(value)) return fail(path, Messages.type(field, 'array')), { ok: false };
      const out: unknown[] = [];
      let ok = true;
      value.forEach((item, i) => {
        const r = walk(type.ofType, item, [...path, String(i)], fromQuery);
        if (r.ok) out.push(r.value);
        else ok = false;
      });
      return ok ? { ok, value: out } : { ok: false };
    }
    if (isInputObjectType(type)) {
      if (typeof value !== 'object' || Array.isArray(value)) return fail(path, Messages.type(field, 'object')), { ok: false };
      const given = value as Record<string, unknown>;
      const fields = type.getFields();
      const out: Record<string, unknown> = {};
      const known = new Set<string>();
      for (const f of Object.values(fields)) {
        const key = snakeCase(f.name);
        known.add(key);
        const r = key in given ? walk(f.type, given[key], [...path, key], fromQuery) : { ok: !isNonNullType(f.type) };
        if (!(key in given) && !r.ok) fail([...path, key], Messages.required([...path, key].join('.')));
        if (r.ok && key in given) out[f.name] = r.value;
        else if (!r.ok && isNonNullType(f.type)) out[f.name] = standIn(f.type);
      }
      if (fromQuery) for (const key of Object.keys(given)) if (!known.has(key)) fail([...path, key], `The ${key} parameter is not supported.`);
      return { ok: true, value: out };
    }
    if (isEnumType(type)) {
      if (typeof value !== 'string' || !type.getValue(value)) return fail(path, Messages.selected(field)), { ok: false };
      return { ok: true, value };
    }
    if (isScalarType(type)) {
      const unfit = typeof value === 'string' ? unstorable(value) : undefined;
      if (unfit) return fail(path, unfit(field)), { ok: false };
      if (fromQuery && type.name === 'Int' && typeof value === 'string' && /^-?\d+$/.test(value)) {
        const n = Number(value);
        if (n > GRAPHQL_MAX_INT || n < GRAPHQL_MIN_INT) {
          for (const message of beyondIntMessages(field, n > 0)) fail(path, message);
          return { ok: false };
        }
      }
      const input = fromQuery && typeof value === 'string' ? fromQueryText(type.name, value) : value;
      try {
        // Only a check: graphql-js parses the value again when it executes.
        type.parseValue(input);
        return { ok: true, value: input };
      } catch {
        return fail(path, Messages.type(field, EXPECTED[type.name] ?? type.name)), { ok: false };
      }
    }
    return { ok: false };
  }

  const variables: Record<string, unknown> = {};
  for (const def of operation.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    if (!(name in raw)) continue;
    const type = typeFromAST(schema, def.type as never) as GraphQLInputType;
    // An input object's fields are named from its root (`first_name`, not `input.first_name`).
    const root = isInputObjectType(isNonNullType(type) ? type.ofType : type) ? [] : [snakeCase(name)];
    const r = walk(type, raw[name], root, source === 'query');
    if (r.ok) variables[name] = r.value;
  }
  return { variables, errors };
}
