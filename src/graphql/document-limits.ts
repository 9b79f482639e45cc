import { type DocumentNode, GraphQLError, Lexer, Source, TokenKind, parse } from 'graphql';
import { ErrorCode } from './errors.js';

/**
 * What a document may be before graphql-js parses it. Checked by one flat pass of
 * graphql-js's own lexer, so neither a huge document nor a deeply nested one (which
 * would overflow the parser's recursion) ever reaches the parser.
 */
export const DOCUMENT_LIMITS = {
  /** Bytes of the document text (UTF-8). */
  bytes: 100_000,
  /** Lexical tokens: names, punctuation, values. */
  tokens: 10_000,
  /** Nesting of `{`, `(` and `[`: the standard introspection query needs 13. */
  nesting: 64,
};

const OPEN = new Set<string>([TokenKind.BRACE_L, TokenKind.PAREN_L, TokenKind.BRACKET_L]);
const CLOSE = new Set<string>([TokenKind.BRACE_R, TokenKind.PAREN_R, TokenKind.BRACKET_R]);

const refused = (message: string) => new GraphQLError(message, { extensions: { code: ErrorCode.LimitExceeded } });

/** graphql-js's parse, behind the byte, token and nesting limits. */
export function parseWithinLimits(source: string | Source): DocumentNode {
  const text = typeof source === 'string' ? source : source.body;
  if (Buffer.byteLength(text, 'utf8') > DOCUMENT_LIMITS.bytes) throw refused(`The document is too large: at most ${DOCUMENT_LIMITS.bytes} bytes.`);
  const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source);
  let tokens = 0;
  let nesting = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (++tokens > DOCUMENT_LIMITS.tokens) throw refused(`The document has too many tokens: at most ${DOCUMENT_LIMITS.tokens}.`);
      if (OPEN.has(token.kind) && ++nesting > DOCUMENT_LIMITS.nesting) throw refused(`The document is nested too deeply: at most ${DOCUMENT_LIMITS.nesting} levels.`);
      if (CLOSE.has(token.kind)) nesting -= 1;
    }
  } catch (error) {
    // A lexical error is the parser's to report, with its usual message and location.
    if (!(error instanceof GraphQLError) || error.extensions.code === ErrorCode.LimitExceeded) throw error;
  }
  return parse(source, { maxTokens: DOCUMENT_LIMITS.tokens });
}
