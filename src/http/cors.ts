import { Response } from '@whatwg-node/fetch';

/**
 * CORS, one rule for every path (/api/v1, /graphql, /healthz): only the origins listed
 * in CORS_ORIGINS get Access-Control-Allow-* headers, always with credentials; any
 * other origin gets none, and the browser refuses. With no origins listed nothing
 * depends on the Origin header and no CORS header is ever sent.
 */
export const CORS_METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS';
/** Every request header the API reads (Content-Type: application/json is not CORS-safelisted either). */
export const CORS_REQUEST_HEADERS = 'X-Api-Key, Content-Type, Idempotency-Key, X-Request-Id';
/** Response headers browser code may read besides the safelisted ones. */
export const CORS_EXPOSED_HEADERS = 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, Idempotent-Replayed';
/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 600;

/** A browser's preflight: OPTIONS asking, before the real request, whether that method may be sent. */
export const isPreflight = (request: Request) =>
  request.method === 'OPTIONS' && request.headers.has('origin') && request.headers.has('access-control-request-method');

/** Adds `Origin` to a response's Vary header, keeping what is there. */
function varyOnOrigin(headers: Headers): void {
  const vary = headers.get('vary');
  if (!vary) headers.set('Vary', 'Origin');
  else if (!vary.split(',').some((v) => ['origin', '*'].includes(v.trim().toLowerCase()))) headers.set('Vary', `${vary}, Origin`);
}

export function createCors(origins: readonly string[]) {
  const listed = new Set(origins);
  const enabled = listed.size > 0;
  /** The request's origin when it is listed, else null. */
  const allowedOrigin = (request: Request) => {
    const origin = request.headers.get('origin');
    return origin !== null && listed.has(origin) ? origin : null;
  };

  return {
    /**
     * The answer to a preflight, before any route or key (a browser sends no key with it):
     * 204 whatever the path; the Allow headers only for a listed origin.
     */
    preflight(request: Request): Response {
      const headers = new Headers();
      const origin = allowedOrigin(request);
      if (origin) {
        headers.set('Access-Control-Allow-Origin', origin);
        headers.set('Access-Control-Allow-Credentials', 'true');
        headers.set('Access-Control-Allow-Methods', CORS_METHODS);
        headers.set('Access-Control-Allow-Headers', CORS_REQUEST_HEADERS);
        headers.set('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
      }
      if (enabled) varyOnOrigin(headers);
      return new Response(null, { status: 204, statusText: 'No Content', headers });
    },

    /** Adds the CORS headers to an actual response (errors included, so browser code can read them). */
    decorate(request: Request, response: Response): void {
      if (!enabled) return;
      // Every answer differs by Origin once an origin is listed: a cache must not hand one origin's copy to another.
      varyOnOrigin(response.headers);
      const origin = allowedOrigin(request);
      if (!origin) return;
      response.headers.set('Access-Control-Allow-Origin', origin);
      response.headers.set('Access-Control-Allow-Credentials', 'true');
      response.headers.set('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
    },
  };
}

export type Cors = ReturnType<typeof createCors>;
