import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionNode,
  Kind,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import type { CompiledDocument } from '../rest/documents.js';

/**
 * What an operation answers, read from its selection set walked against the schema's
 * output types: exactly the selected fields under their response keys (the adapter's
 * snake_case aliases), each with the nullability its GraphQL type gives.
 */
export type Shape =
  // `type`: the GraphQL type, or the name of an object a route's unwrap builds (a batch's `{"data": [...]}`).
  | { kind: 'object'; type: Pick<GraphQLObjectType, 'name' | 'description'>; fields: ShapeField[] }
  | { kind: 'list'; item: Node }
  | { kind: 'scalar'; name: string }
  | { kind: 'enum'; name: string; values: string[] };

export interface Node {
  nullable: boolean;
  shape: Shape;
}

export interface ShapeField {
  key: string;
  description?: string;
  /** Under @skip/@include: not always there. */
  optional: boolean;
  node: Node;
}

const conditional = (node: { directives?: readonly { name: { value: string } }[] }) => (node.directives ?? []).some((d) => d.name.value === 'skip' || d.name.value === 'include');

/** The shape of an operation's `data`: its root type with the operation's selection. */
export function operationShape(schema: GraphQLSchema, compiled: CompiledDocument): Node {
  const root = schema.getRootType(compiled.operation.operation);
  if (!root) throw new Error(`The schema has no ${compiled.operation.operation} type.`);
  const fragments = new Map(
    compiled.document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
  const synthetic = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: 'data' }, selectionSet: compiled.operation.selectionSet } as FieldNode;
  return { nullable: false, shape: objectShape(root, [synthetic], fragments) };
}

function nodeFor(type: GraphQLOutputType, fieldNodes: FieldNode[], fragments: Map<string, FragmentDefinitionNode>): Node {
  const nullable = !isNonNullType(type);
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return { nullable, shape: { kind: 'list', item: nodeFor(inner.ofType, fieldNodes, fragments) } };
  if (isObjectType(inner)) return { nullable, shape: objectShape(inner, fieldNodes, fragments) };
  if (isEnumType(inner)) return { nullable, shape: { kind: 'enum', name: inner.name, values: inner.getValues().map((v) => v.name) } };
  if (isScalarType(inner)) return { nullable, shape: { kind: 'scalar', name: inner.name } };
  // Interfaces and unions would make the field set depend on the runtime type.
  throw new Error(`The OpenAPI document cannot describe the abstract type ${inner.name}.`);
}

function objectShape(type: GraphQLObjectType, fieldNodes: FieldNode[], fragments: Map<string, FragmentDefinitionNode>): Shape {
  // Fields under one response key merge, as GraphQL merges them.
  const byKey = new Map<string, { nodes: FieldNode[]; optional: boolean }>();
  const collect = (selections: readonly SelectionNode[], optional: boolean) => {
    for (const s of selections) {
      if (s.kind === Kind.FIELD) {
        const key = s.alias?.value ?? s.name.value;
        const entry = byKey.get(key) ?? { nodes: [], optional: true };
        entry.nodes.push(s);
        entry.optional &&= optional || conditional(s);
        byKey.set(key, entry);
        continue;
      }
      const fragment = s.kind === Kind.FRAGMENT_SPREAD ? fragments.get(s.name.value) : s;
      if (!fragment) throw new Error(`Unknown fragment ${(s as { name: { value: string } }).name.value}.`);
      const on = fragment.typeCondition?.name.value;
      if (on !== undefined && on !== type.name) throw new Error(`A fragment on ${on} inside ${type.name} is conditional: the OpenAPI document cannot describe it.`);
      collect(fragment.selectionSet.selections, optional || conditional(s));
    }
  };
  for (const node of fieldNodes) if (node.selectionSet) collect(node.selectionSet.selections, false);

  const fields: ShapeField[] = [];
  for (const [key, { nodes, optional }] of byKey) {
    const name = nodes[0]!.name.value;
    if (name === '__typename') {
      fields.push({ key, optional, node: { nullable: false, shape: { kind: 'scalar', name: 'String' } } });
      continue;
    }
    const field = type.getFields()[name];
    if (!field) throw new Error(`${type.name} has no field ${name}.`);
    fields.push({ key, description: field.description ?? undefined, optional, node: nodeFor(field.type, nodes, fragments) });
  }
  return { kind: 'object', type, fields };
}

/**
 * A stand-in for `data` with every selected field filled, for running a route's
 * `status` and `unwrap` functions at build time: each object and list remembers the
 * node it stands for, each leaf read is recorded by its path, and `pick` chooses
 * the leaves' values.
 */
export function standIn(node: Node, pick: (path: string, node: Node) => unknown, origin: Map<object, Node>, reads: Map<string, Node>, path = ''): unknown {
  const { shape } = node;
  if (shape.kind === 'list') {
    const list = [standIn(shape.item, pick, origin, reads, `${path}.0`)];
    origin.set(list, node);
    return list;
  }
  if (shape.kind === 'object') {
    const object: Record<string, unknown> = {};
    for (const field of shape.fields) {
      const at = path ? `${path}.${field.key}` : field.key;
      if (field.node.shape.kind === 'object' || field.node.shape.kind === 'list') object[field.key] = standIn(field.node, pick, origin, reads, at);
      else
        Object.defineProperty(object, field.key, {
          enumerable: true,
          get: () => (reads.set(at, field.node), pick(at, field.node)),
        });
    }
    origin.set(object, node);
    return object;
  }
  return pick(path, node);
}

/** Every value a leaf can take, where there are few: booleans and enums (and null where allowed). */
export function leafValues(node: Node): unknown[] | undefined {
  const { shape } = node;
  const values = shape.kind === 'enum' ? shape.values : shape.kind === 'scalar' && shape.name === 'Boolean' ? [true, false] : undefined;
  return values && (node.nullable ? [...values, null] : values);
}

/** A plausible value for a leaf nobody asked about. */
export function sampleValue(node: Node): unknown {
  const { shape } = node;
  if (shape.kind === 'enum') return shape.values[0];
  if (shape.kind !== 'scalar') return null;
  return ({ Boolean: true, Int: 1, SafeInt: 1, Float: 1, Decimal: 1, JSON: {}, Date: '2026-01-01', DateTime: '2026-01-01T00:00:00.000Z' } as Record<string, unknown>)[shape.name] ?? 'x';
}
