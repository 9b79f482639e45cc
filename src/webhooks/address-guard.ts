import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The slice of `dns.promises.lookup` the URL check uses, so tests can inject answers. */
export type LookupAll = (hostname: string, options: { all: true }) => Promise<LookupAddress[]>;

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * True for any address a webhook must not reach: everything ipaddr.js does not call
 * plain 'unicast' (loopback, private, link-local and so cloud metadata, unique-local,
 * multicast, unspecified, carrier-grade NAT, reserved, and the IPv6 ranges that embed
 * or tunnel IPv4). Only canonical literals are accepted: ipaddr.js would also read
 * shorthand like `1.2.3`, which no resolver hands us, so anything else is refused.
 */
export function isBlockedAddress(ip: string): boolean {
  if (isIP(ip) === 0) return true;
  try {
    // process() turns an IPv4-mapped IPv6 address into the IPv4 address it reaches.
    const address = ipaddr.process(ip);
    // ipaddr.js calls the deprecated IPv4-compatible form (::127.0.0.1, ::/96) unicast: refused like what it embeds could be.
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return true;
    return address.range() !== 'unicast';
  } catch {
    return true;
  }
}

/** The host of a parsed URL without IPv6 brackets, as net and ipaddr.js expect it. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Create/update-time validation of a webhook URL: null when acceptable, else the
 * message of a 422 on `url`. Unless private networks are allowed, an IP literal must
 * not be blocked and a name must resolve, with every address unblocked (a single
 * private answer could be the one connected to). Delivery checks again at connect time.
 */
export async function checkWebhookUrl(
  url: string,
  { allowPrivate }: { allowPrivate: boolean },
  lookup: LookupAll = dns.lookup,
): Promise<string | null> {
  const shapeProblem = urlShapeProblem(url);
  if (shapeProblem !== null || allowPrivate) return shapeProblem;
  const host = bareHostname(new URL(url));
  const addresses = isIP(host) !== 0 ? [host] : await resolveAll(host, lookup);
  if (addresses.length === 0) return 'The url host could not be resolved.';
  return addresses.some(isBlockedAddress)
    ? 'The url must not point to a private, loopback, link-local or reserved address.'
    : null;
}

/**
 * The rules that need no network: length, scheme, user info. A host is always present:
 * the URL parser refuses an http(s) URL without one.
 */
function urlShapeProblem(url: string): string | null {
  if (url.length > MAX_WEBHOOK_URL_LENGTH) return `The url must not be longer than ${MAX_WEBHOOK_URL_LENGTH} characters.`;
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    return 'The url must be an absolute http or https URL.';
  }
  if (parsed.username !== '' || parsed.password !== '') return 'The url must not contain user information.';
  return null;
}

/** Every address of a name; none when it does not resolve. */
async function resolveAll(host: string, lookup: LookupAll): Promise<string[]> {
  try {
    return (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    return [];
  }
}
