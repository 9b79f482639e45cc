import { lookup as dnsLookup } from 'node:dns';
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { bareHostname, isBlockedAddress } from './address-guard.js';

export type AttemptError = 'timeout' | 'connection_failed' | 'blocked_address' | 'redirect';

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  body: string | null;
  error: AttemptError | null;
  retryAfterSeconds: number | null;
}

export interface PostOptions {
  /** One deadline for the whole attempt: connect, headers and body. */
  timeoutMs: number;
  allowPrivate: boolean;
  /** Aborting it ends the attempt at once, reported as a timeout (the answer never came in time). */
  signal?: AbortSignal;
}

/** The part of an answer kept (and stored as `response_body`). */
export const MAX_RESPONSE_CHARS = 1024;

/** Raised by the guarded lookup; recognised by identity when the request fails. */
class BlockedAddressError extends Error {
  constructor(hostname: string) {
    super(`${hostname} resolves to a blocked address`);
  }
}

/**
 * One webhook attempt: POST `body` to `url`, never following redirects, and report what
 * happened. Never throws for network reasons: every failure is a result.
 */
export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<AttemptResult> {
  const target = URL.canParse(url) ? new URL(url) : null;
  if (target === null || (target.protocol !== 'http:' && target.protocol !== 'https:')) {
    return Promise.resolve(failure('connection_failed'));
  }
  // Node never calls `lookup` for an IP literal, so the guarded lookup cannot see it.
  const host = bareHostname(target);
  if (!options.allowPrivate && isIP(host) !== 0 && isBlockedAddress(host)) {
    return Promise.resolve(failure('blocked_address'));
  }
  if (options.signal?.aborted) return Promise.resolve(failure('timeout'));
  return attempt(target, body, headers, options);
}

function attempt(target: URL, body: string, headers: Record<string, string>, options: PostOptions): Promise<AttemptResult> {
  return new Promise((resolve) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'Salesgraph-Webhooks/1',
        ...headers,
        'Content-Length': String(Buffer.byteLength(body)),
      },
      // Kept-alive connections, one pool per setting: each was checked when it connected (the guarded
      // lookup runs for every new connection), and a pooled one goes back to the address it was checked for.
      agent: agentFor(target.protocol, options.allowPrivate),
      lookup: options.allowPrivate ? undefined : guardedLookup,
    });
    let settled = false;
    /** `complete`: the whole answer was read, so the connection can serve the next attempt. */
    const finish = (result: AttemptResult, complete = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', onAbort);
      if (!complete) req.destroy(); // closes the socket: the rest of a long answer is never read
      resolve(result);
    };
    const onAbort = () => finish(failure('timeout'));
    const deadline = setTimeout(onAbort, options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => finish(failure(err instanceof BlockedAddressError ? 'blocked_address' : 'connection_failed')));
    req.on('response', (res) => readFirstChars(res, (text) => finish(answered(res, text), res.complete)));
    req.end(body);
  });
}

/** Connections kept per origin: as many as the attempts in flight to one endpoint (the worker's cap), so none waits for a socket while its deadline runs. */
export const SOCKETS_PER_ORIGIN = 32;

const agents = new Map<string, HttpAgent>();
/** A keep-alive pool per protocol and address rule (a pool for private networks never serves a guarded attempt). */
function agentFor(protocol: string, allowPrivate: boolean): HttpAgent {
  const key = `${protocol} ${allowPrivate}`;
  let agent = agents.get(key);
  if (!agent) {
    // Idle connections close after 4 s: before a receiver's own idle close (Node's default is 5 s) can race a reuse.
    const settings = { keepAlive: true, maxSockets: SOCKETS_PER_ORIGIN, maxFreeSockets: SOCKETS_PER_ORIGIN, timeout: 4_000 };
    agent = protocol === 'https:' ? new HttpsAgent(settings) : new HttpAgent(settings);
    agents.set(key, agent);
  }
  return agent;
}

/**
 * Resolves like `dns.lookup`, then refuses when an address the socket may connect to is
 * blocked: the name was checked when the URL was saved, but it may resolve differently
 * now (DNS rebinding). Handles both forms node asks for (`all` with autoSelectFamily).
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, options, (err, address, family) => {
    if (err) return callback(err, address, family);
    const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address);
    if (addresses.some(isBlockedAddress)) return callback(new BlockedAddressError(hostname), address, family);
    callback(null, address, family);
  });
};

/**
 * Reads the first MAX_RESPONSE_CHARS characters (code points, decoded as UTF-8) of an
 * answer, then hands them over, so a huge or endless body costs nothing.
 */
function readFirstChars(res: IncomingMessage, done: (text: string) => void): void {
  const decoder = new StringDecoder('utf8');
  let text = '';
  let chars = 0;
  const take = (piece: string) => {
    for (const char of piece) {
      if (chars === MAX_RESPONSE_CHARS) break;
      text += char;
      chars += 1;
    }
    if (chars === MAX_RESPONSE_CHARS) done(text);
  };
  res.on('data', (chunk: Buffer) => take(decoder.write(chunk)));
  // 'close' follows the end of the answer and a connection dropped mid-body alike (the
  // latter with an 'error', expected here): either way, what arrived is the answer.
  res.on('error', () => {});
  res.on('close', () => {
    take(decoder.end());
    done(text);
  });
}

function answered(res: IncomingMessage, body: string): AttemptResult {
  const status = res.statusCode as number; // always set on a client's answer
  const limited = status === 429 || status === 503;
  return {
    ok: status >= 200 && status < 300,
    status,
    body,
    error: status >= 300 && status < 400 ? 'redirect' : null,
    retryAfterSeconds: limited ? retryAfterSeconds(res.headers['retry-after'], Date.now()) : null,
  };
}

/** A Retry-After header (delta-seconds or HTTP-date) in seconds from now, or null. */
export function retryAfterSeconds(value: string | undefined, now: number): number | null {
  const trimmed = value?.trim() ?? '';
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // Every HTTP-date form starts with a day name; Date.parse alone would read "-5" as a year.
  const date = /^[A-Za-z]{3}/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

function failure(error: AttemptError): AttemptResult {
  return { ok: false, status: null, body: null, error, retryAfterSeconds: null };
}
