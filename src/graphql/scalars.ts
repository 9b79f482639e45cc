import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date written `YYYY-MM-DD` (so 2026-02-30 is refused). */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC, which reads years 0 to 99 as 1900 to 1999; year 0000 is
  // refused, as Laravel's date rule (PHP's checkdate) refuses it.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return y >= 1 && date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

// ISO 8601 with a time and an explicit offset; the date part must be a real date.
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/i;

export function parseDateTime(value: unknown): Date {
  if (typeof value !== 'string') throw new GraphQLError('DateTime must be an ISO 8601 string.');
  const m = DATE_TIME.exec(value);
  const date = new Date(value);
  if (!m || !isCalendarDate(m[1]!) || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 date-time with a time zone.');
  return date;
}

function literal(ast: ValueNode): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.ENUM:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map(literal);
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literal(f.value)]));
    default:
      // Variables inside a literal are resolved by graphql-js before parseLiteral is reached.
      return undefined;
  }
}

export const DateScalar: GraphQLScalarType<string, string> = new GraphQLScalarType<string, string>({
  name: 'Date',
  description: 'A calendar date, `YYYY-MM-DD`.',
  serialize: (v) => String(v),
  parseValue(v) {
    if (typeof v !== 'string' || !isCalendarDate(v)) throw new GraphQLError('Date must be a real calendar date written YYYY-MM-DD.');
    return v;
  },
  parseLiteral(ast): string {
    return DateScalar.parseValue(literal(ast));
  },
});

export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'An instant, ISO 8601 in UTC with milliseconds (`2026-11-22T10:15:00.000Z`).',
  serialize: (v) => (v instanceof Date ? v : new Date(String(v))).toISOString(),
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(literal(ast)),
});

export const JsonScalar = new GraphQLScalarType<unknown, unknown>({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: literal,
});

/**
 * Exact decimals (money, percentages) as JSON numbers. Stored as decimal columns;
 * validation keeps values within what a double carries exactly (see docs/decisions.md).
 */
export const DecimalScalar: GraphQLScalarType<number, number> = new GraphQLScalarType<number, number>({
  name: 'Decimal',
  description: 'An exact decimal number (money, percentages), sent and received as a JSON number.',
  serialize: (v) => Number(typeof v === 'object' && v !== null ? v.toString() : v),
  parseValue(v) {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new GraphQLError('Decimal must be a finite number.');
    return v;
  },
  parseLiteral(ast): number {
    return DecimalScalar.parseValue(literal(ast));
  },
});

/** Integers beyond GraphQL's 32-bit Int (amounts in minor units), exact up to 2^53 - 1. */
export const SafeIntScalar: GraphQLScalarType<number, number> = new GraphQLScalarType<number, number>({
  name: 'SafeInt',
  description: 'An integer between -(2^53 - 1) and 2^53 - 1, as a JSON number.',
  serialize: (v) => Number(v),
  parseValue(v) {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new GraphQLError('SafeInt must be an integer between -(2^53 - 1) and 2^53 - 1.');
    return v;
  },
  parseLiteral(ast): number {
    return SafeIntScalar.parseValue(literal(ast));
  },
});
