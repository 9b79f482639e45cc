import { lexicographicSortSchema, printSchema } from 'graphql';
import { recordEventsOfEveryMutation } from '../events/mutations.js';
import { createRepresentation } from '../events/representation.js';
// Importing the modules registers every resource's types, queries and mutations.
import { restRoutes } from '../modules/index.js';
import { builder } from './builder.js';

const built = builder.toSchema();

/** A record as its REST GET answers it (an event's `data.object`). */
export const represent = createRepresentation(built, restRoutes);

export const schema = recordEventsOfEveryMutation(built, represent);

/** The schema as `schema.graphql` holds it (sorted, so diffs are stable). */
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`;
