import { PHONE } from '../../validation/rules.js';
import { isCalendarDate } from '../../graphql/scalars.js';
import type { Prisma } from '../../generated/sqlite/client.js';
import type { Context } from '../../graphql/context.js';
import type { FieldErrors } from '../../validation/messages.js';
import { Messages } from '../../validation/messages.js';
import type { PropertyObject, PropertyType } from './property-definitions.input.js';

export type PropertyMap = Record<string, unknown>;

interface ActiveDefinition {
  type: PropertyType;
  options: string[];
}

/** The object's active definitions by key, loaded once per request (lists stay at one query). */
export function activeDefinitions(ctx: Context, object: PropertyObject): Promise<Map<string, ActiveDefinition>> {
  const cacheKey = `property-definitions:${object}`;
  const cache = (ctx.cache ??= new Map());
  if (!cache.has(cacheKey)) {
    cache.set(
      cacheKey,
      ctx.db.propertyDefinition
        .findMany({ where: { object, isActive: true }, select: { key: true, type: true, options: true }, orderBy: { id: 'asc' } })
        .then((rows) => new Map(rows.map((r) => [r.key, { type: r.type as PropertyType, options: (r.options as string[]) ?? [] }]))),
    );
  }
  return cache.get(cacheKey) as Promise<Map<string, ActiveDefinition>>;
}

/** The keys of the object's active definitions, oldest first: the CSV export's `properties.<key>` columns. */
export const activePropertyKeys = async (ctx: Context, object: PropertyObject) => [...(await activeDefinitions(ctx, object)).keys()];

function fits(definition: ActiveDefinition, value: unknown, field: string): string | undefined {
  switch (definition.type) {
    case 'string':
      return typeof value === 'string' && value.length <= 10_000 ? undefined : typeof value === 'string' ? Messages.maxChars(field, 10_000) : Messages.type(field, 'string');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : Messages.type(field, 'number');
    case 'boolean':
      return typeof value === 'boolean' ? undefined : Messages.type(field, 'boolean');
    case 'date':
      return typeof value === 'string' && isCalendarDate(value) ? undefined : Messages.type(field, 'date');
    case 'enum':
      return typeof value === 'string' && definition.options.includes(value) ? undefined : Messages.selected(field);
    case 'phone':
      return typeof value === 'string' && PHONE.test(value) ? undefined : Messages.phone(field);
  }
}

/**
 * Checks a sent `properties` map: every key an active definition of the object,
 * every value of its type (`null` removes the key). Wrong shapes are zod's to report.
 */
export async function propertyErrors(ctx: Context, object: PropertyObject, sent: unknown): Promise<FieldErrors> {
  if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) return {};
  const definitions = await activeDefinitions(ctx, object);
  const errors: FieldErrors = {};
  for (const [key, value] of Object.entries(sent)) {
    const field = `properties.${key}`;
    const definition = definitions.get(key);
    if (!definition) errors[field] = [`The ${field} field is not an active ${object} property.`];
    else if (value !== null) {
      const problem = fits(definition, value, field);
      if (problem) errors[field] = [problem];
    }
  }
  return errors;
}

/**
 * The stored map with the sent one merged in: sent keys replace, `null` removes. The
 * map has no prototype, so every key (`__proto__`, `constructor`) is an ordinary key.
 */
export function mergeProperties(stored: unknown, sent: PropertyMap | undefined): Prisma.InputJsonObject {
  const merged: PropertyMap = Object.create(null);
  const base = typeof stored === 'object' && stored !== null && !Array.isArray(stored) ? stored : {};
  for (const [key, value] of Object.entries(base)) merged[key] = value;
  for (const [key, value] of Object.entries(sent ?? {})) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged as Prisma.InputJsonObject;
}

/**
 * What responses show: stored values of active definitions that fit them as they are
 * now. A deactivated definition's values, and values a later change of type or options
 * no longer admits, stay stored but hidden (they show again if the definition comes back).
 */
export async function visibleProperties(ctx: Context, object: PropertyObject, stored: unknown): Promise<PropertyMap> {
  const definitions = await activeDefinitions(ctx, object);
  return Object.fromEntries(
    Object.entries((stored as PropertyMap | null) ?? {}).filter(([key, value]) => {
      const definition = definitions.get(key);
      return definition !== undefined && fits(definition, value, key) === undefined;
    }),
  );
}
