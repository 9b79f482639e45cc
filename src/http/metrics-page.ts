import { createHash, timingSafeEqual } from 'node:crypto';
import type { Metrics } from './metrics.js';
import type { RequestFacts } from './request-facts.js';
import { errorBody, json } from './responses.js';

// Apart from the metrics themselves: every process serves this page, while prom-client is
// loaded only by a process that keeps metrics (METRICS_TOKEN set).

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /metrics: the scrape, only with `Authorization: Bearer <METRICS_TOKEN>`. Without
 * metrics, without the header or with another token, the API's plain 404, as for a path
 * that does not exist. The token is compared as SHA-256 digests: equal lengths, in
 * constant time, whatever its length.
 */
export function createMetricsPage(metrics: Metrics | undefined, token: string | undefined) {
  const expected = token ? digest(token) : undefined;
  return async (request: Request, facts: RequestFacts): Promise<Response> => {
    const given = /^Bearer +(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
    if (!metrics || !expected || given === undefined || !timingSafeEqual(expected, digest(given))) return json(404, errorBody('Not found.'));
    facts.route = `${request.method} /metrics`;
    if (request.method !== 'GET' && request.method !== 'HEAD') return json(405, errorBody('Method not allowed.'), { Allow: 'GET, HEAD' });
    const { text, contentType } = await metrics.scrape();
    return new Response(text, { headers: { 'Content-Type': contentType, 'Cache-Control': 'no-store' } });
  };
}
