import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
} from 'graphql';

/** One column of an export: its header (the REST field path, dots for nesting) and where its value is. */
export interface Column {
  header: string;
  path: string[];
  /** A list of ids, one cell joined by `;`. */
  list: boolean;
  /** The JSON map of custom properties: a column per active definition. */
  properties: boolean;
}

/**
 * The columns of a list document's items, from its `data { ... }` selection (fragments
 * followed): each leaf field is a column named by its REST path (`stage.external_id`).
 */
export function exportColumns(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Column[] {
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  const root = operation.selectionSet.selections[0];
  if (root?.kind !== Kind.FIELD || !root.selectionSet) throw new Error('export: the document selects no list');
  const listType = getNamedType(schema.getQueryType()!.getFields()[root.name.value]!.type) as GraphQLObjectType;
  const data = root.selectionSet.selections.find((s) => s.kind === Kind.FIELD && s.name.value === 'data');
  if (data?.kind !== Kind.FIELD || !data.selectionSet) throw new Error('export: the list selects no data');
  const columns: Column[] = [];
  const walk = (selectionSet: SelectionSetNode, type: GraphQLObjectType, prefix: string[]) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) walk(fragments.get(selection.name.value)!.selectionSet, type, prefix);
      else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet, type, prefix);
      else {
        const field = type.getFields()[selection.name.value]!;
        const path = [...prefix, selection.alias?.value ?? selection.name.value];
        const named = getNamedType(field.type);
        if (isObjectType(named) && selection.selectionSet) walk(selection.selectionSet, named, path);
        else columns.push({ header: path.join('.'), path, list: isListType(getNullableType(field.type)), properties: path.length === 1 && path[0] === 'properties' });
      }
    }
  };
  walk(data.selectionSet, getNamedType(listType.getFields().data!.type) as GraphQLObjectType, []);
  return columns;
}

/** Spreadsheets run a cell that starts with one of these as a formula (CSV injection): such a cell gets a leading `'`. */
const FORMULA_START = /^[=+\-@\t\r]/;

export const guardCell = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return guardCell(value);
  if (typeof value === 'number' || typeof value === 'boolean') return guardCell(String(value));
  return guardCell(JSON.stringify(value));
}

/** RFC 4180: a cell holding a comma, a quote or a line break is quoted, its quotes doubled (csv-stringify's rule, without its per-row cost). */
const NEEDS_QUOTES = /[",\r\n]/;
const quoted = (cell: string) => (NEEDS_QUOTES.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);

/**
 * Writes rows as CSV (RFC 4180: CRLF, quotes where needed) with `columns`, the
 * `properties` column spread to one column per key of `propertyKeys`.
 */
export function csvWriter(columns: Column[], propertyKeys: string[]) {
  type Cell = Column & { key?: string };
  const expanded: Cell[] = columns.flatMap((c): Cell[] => (c.properties ? propertyKeys.map((key) => ({ ...c, header: `properties.${key}`, key })) : [c]));
  const valueAt = (row: Record<string, any>, c: Cell) => {
    let value: any = row;
    for (const part of c.path) value = value?.[part];
    if (c.key !== undefined) return cell(value?.[c.key]);
    if (c.list && Array.isArray(value)) return value.map((v) => cell(v)).join(';');
    return cell(value);
  };
  const line = (cells: string[]) => `${cells.map(quoted).join(',')}\r\n`;
  return {
    header: () => line(expanded.map((c) => c.header)),
    rows: (rows: Record<string, any>[]) => {
      let text = '';
      for (const row of rows) text += line(expanded.map((c) => valueAt(row, c)));
      return text;
    },
  };
}
