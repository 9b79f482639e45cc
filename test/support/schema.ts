import { buildSchema } from '../../src/schema.js';

/** The service's schema, built once per test worker as a serving process builds it once: every app a test starts shares it. */
export const { schema, represent } = buildSchema();
export const serviceSchema = { schema, represent };
