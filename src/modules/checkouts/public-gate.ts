import type { Database } from '../../db/client.js';
import type { Actor, Admission, Admit, CommitNotices } from '../../graphql/context.js';
import { DEFAULT_SETTINGS, type Settings, createContext } from '../../graphql/context.js';
import { rateLimitCounter } from '../../auth/gate.js';
import { type RateLimitStore, RateLimiter } from '../../http/rate-limit.js';
import { readBody } from '../../http/responses.js';
import type { RequestFacts } from '../../http/request-facts.js';
import { verifySignature } from '../../webhooks/signing.js';

const refused = (status: 401 | 404 | 429, message: string, headers: Record<string, string> = {}): Admission => ({ ok: false, status, message, headers });
export const LINK_NOT_FOUND = 'Payment link not found.';
export const CHECKOUT_NOT_FOUND = 'Checkout not found.';
const BAD_SIGNATURE = 'Invalid webhook signature.';
// What the service makes: tokens of URL-safe characters, account ids of letters and digits.
// Anything else names nothing and is answered without a lookup (a NUL or a lone
// surrogate would otherwise reach the database, which refuses them).
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;
const ID_SHAPE = /^[A-Za-z0-9]{1,64}$/;

/** Counts one public request against the limit per client address: its rate-limit headers, and the 429 to answer when it is over. */
export type PublicRateLimit = (facts: RequestFacts) => Promise<{ headers: Record<string, string>; refused?: Admission }>;

/**
 * PUBLIC_RATE_LIMIT_PER_MINUTE per client address, in the same store as the key limit
 * (so a cluster or a Redis shares it), under `ip:` keys beside the API keys' counts
 * (ULIDs). A request is counted once however often it is asked about: the server asks
 * first, for every public request, 404s included (API.md section 5), before any route
 * or lookup; the gate asks again for the answer's headers.
 */
export function createPublicRateLimit(limitPerMinute: number, store?: RateLimitStore): PublicRateLimit {
  const count = rateLimitCounter(store ?? new RateLimiter(limitPerMinute), limitPerMinute, 'public rate limit');
  const counted = new WeakMap<RequestFacts, ReturnType<PublicRateLimit>>();
  return (facts) => {
    let hit = counted.get(facts);
    if (!hit) counted.set(facts, (hit = count(`ip:${facts.clientAddress ?? 'unknown'}`, facts.requestId)));
    return hit;
  };
}

/**
 * The door of the routes that take no key: the checkout's public API (API.md section 7)
 * and the providers' webhooks. The credential is in the path, each checked by one
 * lookup: an active link's public token, a checkout's token, or a provider account whose
 * webhook secret signs the body. A request over the public limit is refused before any lookup.
 */
export function createPublicGate(database: Database, limit: PublicRateLimit, settings: Settings = DEFAULT_SETTINGS, commits?: CommitNotices): Admit {
  const prisma = database.prisma;

  const admitted = (workspace: { id: string; defaultCurrency: string }, actor: Actor, request: Request, requestId: string, headers: Record<string, string>): Admission => ({
    ok: true,
    headers,
    context: createContext(prisma, workspace, actor, { requestId, origin: new URL(request.url).origin, settings, commits }),
  });

  return async function admit(request, facts, params) {
    const { requestId } = facts;
    const { headers, refused: limited } = await limit(facts);
    if (limited) return limited;
    const workspace = { select: { id: true, defaultCurrency: true } } as const;

    if (params.publicToken !== undefined) {
      if (!TOKEN_SHAPE.test(params.publicToken)) return refused(404, LINK_NOT_FOUND, headers);
      const link = await prisma.paymentLink.findUnique({ where: { publicToken: params.publicToken }, select: { isActive: true, workspace } });
      if (!link?.isActive) return refused(404, LINK_NOT_FOUND, headers);
      facts.workspaceId = link.workspace.id;
      return admitted(link.workspace, { type: 'checkout' }, request, requestId, headers);
    }
    if (params.checkoutId !== undefined) {
      if (!TOKEN_SHAPE.test(params.checkoutId)) return refused(404, CHECKOUT_NOT_FOUND, headers);
      const checkout = await prisma.checkout.findUnique({ where: { token: params.checkoutId }, select: { workspace } });
      if (!checkout) return refused(404, CHECKOUT_NOT_FOUND, headers);
      facts.workspaceId = checkout.workspace.id;
      return admitted(checkout.workspace, { type: 'checkout' }, request, requestId, headers);
    }
    if (params.accountId !== undefined) {
      // No signature headers: refused before any lookup.
      const signed = request.headers.get('webhook-signature') && request.headers.get('webhook-timestamp') && request.headers.get('webhook-id');
      if (!signed || !ID_SHAPE.test(params.accountId)) return refused(401, BAD_SIGNATURE, headers);
      const account = await prisma.paymentProviderAccount.findUnique({ where: { id: params.accountId }, select: { id: true, webhookSecret: true, workspace } });
      if (!account?.webhookSecret) return refused(401, BAD_SIGNATURE, headers);
      // The body is read here (bounded, as every body) and kept: the route reads the same bytes.
      const body = await readBody(request);
      if (!body.ok || !verifySignature(account.webhookSecret, body.bytes, request.headers)) return refused(401, BAD_SIGNATURE, headers);
      facts.workspaceId = account.workspace.id;
      return admitted(account.workspace, { type: 'provider', id: account.id }, request, requestId, headers);
    }
    throw new Error('a public route without a credential in its path');
  };
}
