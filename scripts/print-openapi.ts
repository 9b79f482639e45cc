// Prints the OpenAPI document of the REST face (the one served at /api/v1/openapi.json):
// to stdout, or to the file given as the first argument.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { openApiDocument } from '../src/openapi/index.js';
import { buildSchema } from '../src/schema.js';

const text = `${JSON.stringify(openApiDocument(buildSchema().schema), null, 2)}\n`;
const target = process.argv[2];
if (target) {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  process.stderr.write(`${target} written\n`);
} else process.stdout.write(text);
