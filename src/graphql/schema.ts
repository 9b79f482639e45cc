import { lexicographicSortSchema, printSchema } from 'graphql';
// Importing the modules registers every resource's types, queries and mutations.
import '../modules/index.js';
import { builder } from './builder.js';

export const schema = builder.toSchema();

/** The schema as `schema.graphql` holds it (sorted, so diffs are stable). */
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`;
