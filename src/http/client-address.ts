import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/**
 * One address as written in a header or in TRUST_PROXY: IPv4 in dotted decimal only
 * (ipaddr.js would also read `127.1` or `0x7f.0.0.1`, which no proxy writes), or IPv6.
 * IPv4-mapped IPv6 (`::ffff:10.0.0.1`, what a dual-stack socket reports) becomes the
 * IPv4 address, so that one list entry matches both forms.
 */
function parseAddress(text: string): Address | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!ipaddr.IPv6.isValid(text)) return undefined;
  const v6 = ipaddr.IPv6.parse(text);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/** An address or a CIDR: `10.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`. */
function parseRange(text: string): Range | undefined {
  const [address, bits, ...rest] = text.split('/');
  const parsed = parseAddress(address!);
  if (!parsed || rest.length > 0) return undefined;
  const max = parsed.kind() === 'ipv4' ? 32 : 128;
  if (bits === undefined) return [parsed, max];
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return undefined;
  return [parsed, Number(bits)];
}

/** TRUST_PROXY's entries that are neither an address nor a CIDR (config.ts refuses to start with any). */
export function invalidProxyEntries(entries: string[]): string[] {
  return entries.filter((entry) => parseRange(entry) === undefined);
}

/**
 * The hops a header names, nearest last: `X-Forwarded-For: client, proxy1` or
 * RFC 7239 `Forwarded: for=client, for="[2001:db8::1]:4711";proto=https`. A hop that is
 * not an address (`unknown`, an obfuscated `_name`, garbage) stays in the list as
 * `undefined`: the walk stops there.
 */
function forwardedHops(request: Request): (Address | undefined)[] | undefined {
  const forwarded = request.headers.get('forwarded');
  if (forwarded !== null) {
    const hops = splitOutsideQuotes(forwarded, ',').map((element) => {
      const pair = splitOutsideQuotes(element, ';').find((p) => /^\s*for\s*=/i.test(p));
      return pair === undefined ? undefined : hostOf(unquote(pair.slice(pair.indexOf('=') + 1).trim()));
    });
    return hops;
  }
  const xff = request.headers.get('x-forwarded-for');
  return xff === null ? undefined : xff.split(',').map((hop) => hostOf(hop.trim()));
}

/** An address with or without a port: `1.2.3.4`, `1.2.3.4:80`, `::1`, `[::1]`, `[::1]:80`. */
function hostOf(text: string): Address | undefined {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) return parseAddress(bracketed[1]!);
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(text);
  return parseAddress(v4WithPort ? v4WithPort[1]! : text);
}

const unquote = (text: string) => (text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1).replace(/\\(.)/g, '$1') : text);

/** Splits on `separator` where it is not inside a quoted string (RFC 7239 quotes IPv6 hops and may quote `;` or `,`). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '\\' && quoted) {
      current += c + (text[i + 1] ?? '');
      i += 1;
    } else if (c === '"') {
      quoted = !quoted;
      current += c;
    } else if (c === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

/**
 * The client's address (API.md section 5): the TCP peer's, unless the peer is one of
 * `trusted` (TRUST_PROXY: addresses and CIDRs); then the hops of `Forwarded` (or, without
 * it, `X-Forwarded-For`) are walked from the right, each trusted one skipped, and the
 * first that is not trusted is the client. A hop that is no address ends the walk at the
 * trusted hop before it: what a client writes further left is never believed.
 */
export function createClientAddress(trusted: string[]): (request: Request, peer: string | undefined) => string | undefined {
  const ranges = trusted.map((entry) => parseRange(entry)!);
  const isTrusted = (address: Address) => ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
  // Nothing to walk: the peer's address as the socket reports it, nothing parsed.
  if (ranges.length === 0) return (_request, peer) => peer;
  return (request, peer) => {
    const peerAddress = peer === undefined ? undefined : parseAddress(peer);
    if (!peerAddress || !isTrusted(peerAddress)) return peer;
    let client = peerAddress;
    const hops = forwardedHops(request) ?? [];
    for (let i = hops.length - 1; i >= 0; i -= 1) {
      const hop = hops[i];
      if (!hop) break;
      client = hop;
      if (!isTrusted(hop)) break;
    }
    return client.toString();
  };
}
