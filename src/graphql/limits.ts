import { GraphQLError, Kind, type ASTVisitor, type ValidationContext } from 'graphql';

export const LIMITS = { depth: 10, aliases: 30, fields: 1000 };

/**
 * Caps a document's depth, aliases and number of selected fields (its cost: a page
 * holds at most 100 rows, so fields bound the work of one request).
 */
export function limitsRule(context: ValidationContext): ASTVisitor {
  let aliases = 0;
  let fields = 0;
  let reported = false;
  const report = (message: string) => {
    if (!reported) context.reportError(new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } }));
    reported = true;
  };
  return {
    Field(node, _key, _parent, _path, ancestors) {
      fields += 1;
      if (node.alias) aliases += 1;
      const depth = ancestors.filter((a) => !Array.isArray(a) && (a as { kind?: string }).kind === Kind.FIELD).length + 1;
      if (depth > LIMITS.depth) report(`Query is too deep: at most ${LIMITS.depth} levels.`);
      if (aliases > LIMITS.aliases) report(`Too many aliases: at most ${LIMITS.aliases}.`);
      if (fields > LIMITS.fields) report(`Query is too costly: at most ${LIMITS.fields} fields.`);
    },
  };
}
