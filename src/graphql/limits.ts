import {
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  GraphQLError,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  type SelectionSetNode,
  type ValidationContext,
  getNamedType,
  getNullableType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
} from 'graphql';
import { MAX_BATCH_ITEMS } from './batch.js';
import { ErrorCode } from './errors.js';
import { MAX_PER_PAGE, RELATION_PAGE_SIZE } from './pagination.js';

/**
 * Per operation: depth, aliases, selected fields, and `objects`, the most objects the
 * operation can return: every object-typed field counts once per time it can
 * resolve, multiplying list sizes through the nesting (a page's `data` by its
 * `perPage`, a relation list by its own, a batch mutation's list by its 100). A size
 * given by a variable counts as the largest it may be, since validation runs before
 * variables are known.
 */
export const LIMITS = { depth: 10, aliases: 30, fields: 1000, objects: 10_000, introspectionLists: 3 };

const TOP_LEVEL_PAGE_SIZE = 15;

/** How many items a list field can hold, from its `perPage` argument as written. */
function listSize(node: FieldNode, fallback: number): number {
  const arg = node.arguments?.find((a) => a.name.value === 'perPage');
  if (!arg) return fallback;
  if (arg.value.kind === Kind.INT) return Math.max(1, Math.min(Number(arg.value.value), MAX_PER_PAGE));
  if (arg.value.kind === Kind.NULL) return fallback;
  return MAX_PER_PAGE; // a variable: the most it may be
}

/** Counts fragments where they are spread, so fragments can hide neither depth nor cost. */
export function limitsRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(operation) {
      const fragments = new Map<string, FragmentDefinitionNode>();
      for (const d of context.getDocument().definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
      const schema = context.getSchema();
      let aliases = 0;
      let fields = 0;
      let objects = 0;
      let depth = 0;
      let introspectionLists = 0;
      /**
       * `times`: how many times this selection set resolves; `pageSize`: the size of a
       * page's `data` when the set belongs to a `…Page` object; `lists`: inside
       * `__schema`/`__type`, how many lists enclose the set. Introspection answers from
       * the schema, not the database, so it has its own bound instead of depth and
       * objects (the standard query nests 3 lists: types, fields, args), which is what
       * keeps `fields { type { fields { ... } } }` from multiplying without end.
       */
      const walk = (set: SelectionSetNode, type: GraphQLNamedType | undefined, level: number, times: number, pageSize: number, spreading: Set<string>, lists?: number) => {
        for (const s of set.selections) {
          if (fields > LIMITS.fields) return; // enough to refuse; stop the work
          if (s.kind === Kind.FIELD) {
            fields += 1;
            if (s.alias) aliases += 1;
            const meta = s.name.value === '__schema' ? SchemaMetaFieldDef : s.name.value === '__type' ? TypeMetaFieldDef : undefined;
            const field: GraphQLField<unknown, unknown> | undefined = meta ?? (type && (isObjectType(type) || isInterfaceType(type)) ? type.getFields()[s.name.value] : undefined);
            if (lists === undefined && !meta) depth = Math.max(depth, level);
            if (!field || !s.selectionSet) continue; // unknown fields are another rule's; leaves cost nothing extra
            if (lists !== undefined || meta) {
              const nested = (lists ?? 0) + (isListType(getNullableType(field.type)) ? 1 : 0);
              introspectionLists = Math.max(introspectionLists, nested);
              walk(s.selectionSet, getNamedType(field.type), level + 1, times, pageSize, spreading, nested);
              continue;
            }
            let count = times;
            // A list at the root is a batch's records (at most MAX_BATCH_ITEMS); below, a page's data or a relation.
            const listed = level === 1 ? MAX_BATCH_ITEMS : s.name.value === 'data' && type!.name.endsWith('Page') ? pageSize : listSize(s, RELATION_PAGE_SIZE);
            if (isListType(getNullableType(field.type))) count *= listed;
            const named = getNamedType(field.type);
            if (isCompositeType(named)) objects += count;
            const nextPageSize = named.name.endsWith('Page') ? listSize(s, TOP_LEVEL_PAGE_SIZE) : pageSize;
            walk(s.selectionSet, named, level + 1, count, nextPageSize, spreading, lists);
          } else if (s.kind === Kind.INLINE_FRAGMENT) {
            const narrowed = s.typeCondition ? schema.getType(s.typeCondition.name.value) : type;
            walk(s.selectionSet, narrowed ?? undefined, level, times, pageSize, spreading, lists);
          } else {
            const fragment = fragments.get(s.name.value);
            // Cycles are another rule's to report; here they just stop.
            if (fragment && !spreading.has(s.name.value)) {
              walk(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? undefined, level, times, pageSize, new Set(spreading).add(s.name.value), lists);
            }
          }
        }
      };
      const root = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
      walk(operation.selectionSet, root ?? undefined, 1, 1, TOP_LEVEL_PAGE_SIZE, new Set());
      const problem =
        depth > LIMITS.depth
          ? `Query is too deep: at most ${LIMITS.depth} levels.`
          : aliases > LIMITS.aliases
            ? `Too many aliases: at most ${LIMITS.aliases}.`
            : fields > LIMITS.fields
              ? `Query is too costly: at most ${LIMITS.fields} fields.`
              : objects > LIMITS.objects
                ? `Query can return too many objects: at most ${LIMITS.objects} (lists count at their perPage, ${RELATION_PAGE_SIZE} for a relation unless set otherwise).`
                : introspectionLists > LIMITS.introspectionLists
                  ? `Introspection nests too many lists: at most ${LIMITS.introspectionLists}.`
                  : undefined;
      if (problem) context.reportError(new GraphQLError(problem, { nodes: [operation], extensions: { code: ErrorCode.LimitExceeded } }));
    },
  };
}
