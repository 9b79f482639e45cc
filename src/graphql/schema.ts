import { lexicographicSortSchema, printSchema } from 'graphql';
import { restRoutes } from '../modules/index.js';
import { builder } from './builder.js';

export const schema = builder.toSchema();
export { restRoutes };

/** The schema as `schema.graphql` holds it (sorted, so diffs are stable). */
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`;
