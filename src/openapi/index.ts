import { readFileSync } from 'node:fs';
import type { GraphQLSchema } from 'graphql';
import { inputRules } from '../graphql/inputs.js';
import { publicRoutes, restRoutes } from '../modules/index.js';
import { projectFile } from '../project-files.js';
import { type OpenApiDocument, buildOpenApiDocument } from './document.js';

export { type OpenApiDocument, buildOpenApiDocument };

const { version } = JSON.parse(readFileSync(projectFile('package.json'), 'utf8')) as { version: string };

const built = new WeakMap<GraphQLSchema, OpenApiDocument>();

/** This service's document, from its schema, the route table and the rules; built once per schema (it is deterministic). */
export function openApiDocument(schema: GraphQLSchema): OpenApiDocument {
  let document = built.get(schema);
  if (!document) built.set(schema, (document = buildOpenApiDocument({ schema, routes: restRoutes, publicRoutes, inputRules, version })));
  return document;
}
