import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Response } from '@whatwg-node/fetch';
import type { RequestFacts } from '../http/request-facts.js';
import { errorBody, headersOf, json } from '../http/responses.js';
import type { OpenApiDocument } from './document.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/docs';

// Swagger UI's own files, served from our dependency: a fixed list, nothing else under /docs.
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const INIT = `// Swagger UI over this server's document. No validator badge: it would call another host.
window.ui = SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Salesgraph API reference</title>
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

// The page may load and call this server only; Swagger UI sets inline styles, hence 'unsafe-inline' for styles alone.
const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const readable = (method: string) => method === 'GET' || method === 'HEAD';
const notAllowed = () => json(405, errorBody('Method not allowed.'), { Allow: 'GET, HEAD' });

/**
 * `GET /api/v1/openapi.json` and the `/docs` page: public, like /healthz (API.md §1),
 * so neither goes through the gate. The document is built and serialized on its first
 * request: every process start (each worker of a cluster, each test's) would otherwise
 * pay ~6% of its start-up for a page few processes serve.
 */
export function createApiDocs(document: () => OpenApiDocument) {
  let text: string | undefined;
  const assetDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map<string, Buffer>();
  const asset = (name: string) => {
    let bytes = files.get(name);
    if (!bytes) files.set(name, (bytes = readFileSync(join(assetDir, name))));
    return bytes;
  };
  const send = (body: string | Buffer, type: string, headers: Record<string, string> = {}) =>
    new Response(typeof body === 'string' ? body : new Uint8Array(body), { status: 200, headers: headersOf({ 'Content-Type': type, 'X-Content-Type-Options': 'nosniff', ...headers }) });

  return {
    openapi(request: Request, facts: RequestFacts): Response {
      facts.route = `${request.method} ${OPENAPI_PATH}`;
      if (!readable(request.method)) return notAllowed();
      text ??= JSON.stringify(document());
      return send(text, 'application/json; charset=utf-8', { 'Cache-Control': 'no-cache' });
    },

    /** `/docs` (or `/docs/`) is the page; `/docs/<name>` one of the listed files; anything else 404. */
    docs(request: Request, path: string, facts: RequestFacts): Response {
      const name = path === DOCS_PATH || path === `${DOCS_PATH}/` ? '' : path.slice(DOCS_PATH.length + 1);
      const known = name === '' || name === 'init.js' || Object.hasOwn(ASSETS, name);
      facts.route = known ? `${request.method} ${DOCS_PATH}${name ? `/${name}` : ''}` : 'unmatched';
      if (!known) return json(404, errorBody('Not found.'));
      if (!readable(request.method)) return notAllowed();
      if (name === '') return send(PAGE, 'text/html; charset=utf-8', { 'Content-Security-Policy': PAGE_POLICY, 'Cache-Control': 'no-cache' });
      if (name === 'init.js') return send(INIT, 'text/javascript; charset=utf-8', { 'Cache-Control': 'no-cache' });
      return send(asset(name), ASSETS[name]!, { 'Cache-Control': 'public, max-age=3600' });
    },
  };
}
