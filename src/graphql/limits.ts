import { ErrorCode } from './errors.js';
import { type ASTVisitor, type FragmentDefinitionNode, GraphQLError, Kind, type SelectionSetNode, type ValidationContext } from 'graphql';

export const LIMITS = { depth: 10, aliases: 30, fields: 1000 };

/**
 * Caps each operation's depth, aliases and selected fields, counted with fragments
 * expanded where they are spread (so fragments cannot hide depth or cost). Fields
 * are the cost: a page holds at most 100 rows, so they bound a request's work.
 */
export function limitsRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(operation) {
      const fragments = new Map<string, FragmentDefinitionNode>();
      for (const d of context.getDocument().definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
      let aliases = 0;
      let fields = 0;
      let depth = 0;
      const walk = (set: SelectionSetNode, level: number, spreading: Set<string>) => {
        for (const s of set.selections) {
          if (fields > LIMITS.fields) return;
          if (s.kind === Kind.FIELD) {
            fields += 1;
            if (s.alias) aliases += 1;
            depth = Math.max(depth, level);
            if (s.selectionSet) walk(s.selectionSet, level + 1, spreading);
          } else if (s.kind === Kind.INLINE_FRAGMENT) {
            walk(s.selectionSet, level, spreading);
          } else {
            const fragment = fragments.get(s.name.value);
            // Cycles are another rule's to report; here they just stop.
            if (fragment && !spreading.has(s.name.value)) walk(fragment.selectionSet, level, new Set(spreading).add(s.name.value));
          }
        }
      };
      walk(operation.selectionSet, 1, new Set());
      const problem =
        depth > LIMITS.depth
          ? `Query is too deep: at most ${LIMITS.depth} levels.`
          : aliases > LIMITS.aliases
            ? `Too many aliases: at most ${LIMITS.aliases}.`
            : fields > LIMITS.fields
              ? `Query is too costly: at most ${LIMITS.fields} fields.`
              : undefined;
      if (problem) context.reportError(new GraphQLError(problem, { nodes: [operation], extensions: { code: ErrorCode.LimitExceeded } }));
    },
  };
}
