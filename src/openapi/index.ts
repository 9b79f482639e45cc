import { readFileSync } from 'node:fs';
import { inputRules } from '../graphql/inputs.js';
import { schema } from '../schema.js';
import { publicRoutes, restRoutes } from '../modules/index.js';
import { type OpenApiDocument, buildOpenApiDocument } from './document.js';

export { type OpenApiDocument, buildOpenApiDocument };

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

let built: OpenApiDocument | undefined;

/** This service's document, from the real schema, route table and rules; built once (it is deterministic). */
export const openApiDocument = (): OpenApiDocument => (built ??= buildOpenApiDocument({ schema, routes: restRoutes, publicRoutes, inputRules, version }));
