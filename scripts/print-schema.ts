// Writes schema.graphql, the printed schema (a test checks it is current).
import { writeFileSync } from 'node:fs';
import { buildSchema, printedSchema } from '../src/schema.js';

writeFileSync(new URL('../schema.graphql', import.meta.url), printedSchema(buildSchema().schema));
process.stdout.write('schema.graphql written\n');
