import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import type PrismaTypes from '../generated/sqlite/pothos-types.js';
import { getDatamodel } from '../generated/sqlite/pothos-types.js';
import type { Context } from './context.js';
import { DateScalar, DateTimeScalar, DecimalScalar, JsonScalar, SafeIntScalar } from './scalars.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    ID: { Input: string; Output: string };
    Date: { Input: string; Output: string };
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    Decimal: { Input: number; Output: number | string | { toString(): string } };
    SafeInt: { Input: number; Output: number };
  };
}>({
  plugins: [PrismaPlugin],
  defaultFieldNullability: false,
  prisma: {
    // Every query goes through the caller's workspace-scoped client.
    client: (ctx) => ctx.db as never,
    // Both providers share one datamodel; the SQLite generator's copy serves both.
    dmmf: getDatamodel(),
    onUnusedQuery: null,
  },
});

builder.addScalarType('Date', DateScalar);
builder.addScalarType('DateTime', DateTimeScalar);
builder.addScalarType('JSON', JsonScalar);
builder.addScalarType('Decimal', DecimalScalar);
builder.addScalarType('SafeInt', SafeIntScalar);

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
