import { createHash } from 'node:crypto';
import { Prisma } from '../generated/sqlite/client.js';
import type { KeyType, OrderKey } from './sorting.js';

/**
 * A cursor (API.md section 8) names a position in one list walked in one order: the
 * list, the sort, the direction, and the key values of the row it points past. It is
 * opaque to clients (base64url) and carries a digest of its content, so an edited or
 * truncated cursor is refused rather than read; the values are checked against the
 * keys' types anyway. It is not a secret: it holds nothing the list did not show.
 * As read, it is its direction and values: its list and sort were checked against the
 * request's.
 */
export interface Cursor {
  /** true: the rows after the position; false: the rows before it (a `prev_cursor`). */
  forward: boolean;
  values: unknown[];
}

const VERSION = 1;
const DIGEST_CHARS = 16;
const digest = (body: string) => createHash('sha256').update(`salesgraph cursor ${body}`).digest('base64url').slice(0, DIGEST_CHARS);

const encodeValue = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : Prisma.Decimal.isDecimal(value) ? (value as Prisma.Decimal).toString() : value);

export function encodeCursor(list: string, sort: string, forward: boolean, keys: readonly OrderKey[], row: Record<string, unknown>): string {
  const body = Buffer.from(JSON.stringify([VERSION, list, sort, forward ? 1 : 0, keys.map((k) => encodeValue(row[k.field] ?? null))])).toString('base64url');
  return `${body}.${digest(body)}`;
}

const DECIMAL = /^-?\d{1,30}(\.\d{1,30})?$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A key's value as the cursor carried it, or undefined when it is not one. */
function decodeValue(type: KeyType, nullable: boolean, value: unknown): unknown {
  if (value === null) return nullable ? null : undefined;
  switch (type) {
    case 'String':
      return typeof value === 'string' ? value : undefined;
    case 'Int':
      return Number.isSafeInteger(value) ? value : undefined;
    case 'Decimal':
      return typeof value === 'string' && DECIMAL.test(value) ? value : undefined;
    case 'DateTime': {
      if (typeof value !== 'string' || !ISO.test(value)) return undefined;
      const date = new Date(value);
      return Number.isNaN(date.getTime()) ? undefined : date;
    }
  }
}

/**
 * The cursor a client sent, if it was made for this list and sort; undefined for
 * anything else (another list or sort, edited, malformed).
 */
export function decodeCursor(text: string, list: string, keys: readonly OrderKey[], sort: string): Cursor | undefined {
  const [body, tag, ...more] = text.split('.');
  if (!body || !tag || more.length > 0 || digest(body) !== tag) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 5) return undefined;
  const [version, cursorList, cursorSort, direction, values] = parsed as unknown[];
  if (version !== VERSION || cursorList !== list || cursorSort !== sort || (direction !== 0 && direction !== 1)) return undefined;
  if (!Array.isArray(values) || values.length !== keys.length) return undefined;
  const decoded = keys.map((k, i) => decodeValue(k.type, k.nullable, values[i]));
  if (decoded.some((v) => v === undefined)) return undefined;
  return { forward: direction === 1, values: decoded };
}
