import { type GraphQLInputObjectType, type GraphQLSchema, getNamedType, getNullableType, isListType } from 'graphql';
import { snakeCase } from '../validation/messages.js';

/** What one CSV column feeds: a field of the create input, a custom property, or nothing (a response-only column). */
export type ColumnTarget =
  | { kind: 'field'; field: string; type: 'string' | 'number' | 'boolean' | 'list' }
  | { kind: 'property'; key: string; type: string }
  | { kind: 'ignored' };

export interface ImportSpec {
  /** The GraphQL create input whose fields the columns fill (snake_case names, as REST's). */
  input: string;
  /** Columns of the export that a write does not take (REST response fields): read, then ignored. */
  responseOnly: readonly string[];
  /** Export columns that are the write's field under another name (a deal's `stage.external_id`). */
  renamed?: Readonly<Record<string, string>>;
}

const NUMBER_SCALARS = new Set(['Int', 'Float', 'Decimal']);

/**
 * The column targets of a CSV header, or the columns that are none of them (an
 * unknown column is refused before anything is written). `properties.<key>` needs an
 * active definition of the key, whose type says how to read the cell.
 */
export function planColumns(schema: GraphQLSchema, spec: ImportSpec, header: string[], propertyTypes: ReadonlyMap<string, string>): { targets: ColumnTarget[] } | { unknown: string[]; repeated: string[] } {
  const input = schema.getType(spec.input) as GraphQLInputObjectType;
  const fields = new Map(Object.values(input.getFields()).map((f) => [snakeCase(f.name), f]));
  const unknown: string[] = [];
  const targets = header.map((column): ColumnTarget => {
    const name = spec.renamed?.[column] ?? column;
    if (name.startsWith('properties.') && fields.has('properties')) {
      const key = name.slice('properties.'.length);
      const type = propertyTypes.get(key);
      if (type) return { kind: 'property', key, type };
    }
    const field = name === 'properties' ? undefined : fields.get(name);
    if (field) {
      const nullable = getNullableType(field.type);
      const scalar = getNamedType(field.type).name;
      const type = isListType(nullable) ? 'list' : NUMBER_SCALARS.has(scalar) ? 'number' : scalar === 'Boolean' ? 'boolean' : 'string';
      return { kind: 'field', field: name, type };
    }
    if (spec.responseOnly.includes(column)) return { kind: 'ignored' };
    unknown.push(column);
    return { kind: 'ignored' };
  });
  const repeated = header.filter((c, i) => header.indexOf(c) !== i);
  return unknown.length > 0 || repeated.length > 0 ? { unknown, repeated } : { targets };
}

/** The export's formula guard (src/rest/csv-export.ts), taken off again. */
const GUARDED = /^'[=+\-@\t\r]/;
const unguard = (cell: string) => (GUARDED.test(cell) ? cell.slice(1) : cell);

/** Text as the JSON value a typed field takes; what does not read as one stays text, for validation to word the problem. */
function typed(type: string, text: string): unknown {
  if (type === 'number' && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/**
 * A row as the REST body a write takes: an empty cell is null (an empty id list is
 * the empty set), custom properties gather into `properties`.
 */
export function rowInput(targets: readonly ColumnTarget[], cells: readonly string[]): Record<string, unknown> {
  const input: Record<string, unknown> = Object.create(null);
  targets.forEach((target, i) => {
    if (target.kind === 'ignored') return;
    const cell = unguard(cells[i] ?? '');
    if (target.kind === 'property') {
      const properties = (input.properties ??= Object.create(null)) as Record<string, unknown>;
      properties[target.key] = cell === '' ? null : typed(target.type, cell);
    } else if (target.type === 'list') {
      input[target.field] = cell === '' ? [] : cell.split(';');
    } else {
      input[target.field] = cell === '' ? null : typed(target.type, cell);
    }
  });
  return input;
}
