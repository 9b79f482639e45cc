import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A page of another origin that calls the API the way browser code would: REST with the
 * key (a custom header, so the browser sends a preflight first), the same without a key,
 * and GraphQL (POST JSON, with credentials). It reads the API's address and key from
 * its URL fragment and writes what each call saw into <pre id="out"> as JSON.
 */
const CLIENT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>API client</title></head>
<body>
<pre id="out"></pre>
<script>
  const { api, key } = JSON.parse(decodeURIComponent(location.hash.slice(1)));
  async function call(path, init) {
    try {
      const res = await fetch(api + path, init);
      return {
        status: res.status,
        requestId: res.headers.get('X-Request-Id'),
        limit: res.headers.get('X-RateLimit-Limit'),
        remaining: res.headers.get('X-RateLimit-Remaining'),
        body: await res.json(),
      };
    } catch (error) {
      return { error: error.name + ': ' + error.message };
    }
  }
  (async () => {
    const out = {
      rest: await call('/api/v1/contacts?per_page=5', { headers: { 'X-Api-Key': key } }),
      unauthenticated: await call('/api/v1/contacts', { headers: { 'Content-Type': 'application/json' } }),
      graphql: await call('/graphql', {
        method: 'POST',
        credentials: 'include',
        headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: '{ contacts(perPage: 5) { total data { email } } }' }),
      }),
    };
    document.getElementById('out').textContent = JSON.stringify(out);
    document.body.dataset.done = 'true';
  })();
</script>
</body>
</html>
`;

export interface PageServer {
  origin: string;
  close(): Promise<void>;
}

/** A tiny static server (its own origin) that serves the client page at `/`. */
export async function servePage(): Promise<PageServer> {
  const server: Server = createServer((request, response) => {
    if (request.url !== '/') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(CLIENT_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
