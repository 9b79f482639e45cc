import { type DocumentNode, type GraphQLSchema, Kind, type OperationDefinitionNode, parse, validate, visit } from 'graphql';
import { snakeCase } from '../validation/messages.js';

/**
 * Adds a snake_case alias to every camelCase field below the operation's root field,
 * so results read as the wire's names (the root field is unwrapped, so it keeps its name).
 */
export function withSnakeCaseAliases(document: DocumentNode): DocumentNode {
  return visit(document, {
    Field(node, _key, _parent, _path, ancestors) {
      const root = (ancestors.at(-2) as { kind?: string } | undefined)?.kind === Kind.OPERATION_DEFINITION;
      if (root || node.alias || !/[A-Z]/.test(node.name.value)) return undefined;
      return { ...node, alias: { kind: Kind.NAME, value: snakeCase(node.name.value) } };
    },
  });
}

export interface CompiledDocument {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variableNames: Set<string>;
}

/** Parses and validates a route's document (once: callers keep the result); a broken one throws, naming the route. */
export function compileDocument(schema: GraphQLSchema, source: string, label: string): CompiledDocument {
  const document = withSnakeCaseAliases(parse(source));
  const problems = validate(schema, document);
  if (problems.length > 0) throw new Error(`REST route ${label}: invalid GraphQL document: ${problems.map((p) => p.message).join('; ')}`);
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) throw new Error(`REST route ${label}: a document must hold exactly one operation`);
  const operation = operations[0]!;
  return { document, operation, variableNames: new Set((operation.variableDefinitions ?? []).map((v) => v.variable.name.value)) };
}
