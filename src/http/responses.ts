import { STATUS_CODES } from 'node:http';
import { Response } from '@whatwg-node/fetch';

/**
 * Response headers as a plain object with lower-case names. Responses are
 * @whatwg-node/fetch's, which the server adapter writes out without a stream; their
 * Headers keep an object's names as given, so a later `set('X-Request-Id')` would add
 * a second header beside a mixed-case one.
 */
export function headersOf(headers: Record<string, string>): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const name of Object.keys(headers)) lower[name.toLowerCase()] = headers[name]!;
  return lower;
}

/** JSON responses (with the reason phrase HTTP/1.1 clients show beside the status). */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const statusText = STATUS_CODES[status] ?? '';
  if (status === 204) return new Response(null, { status, statusText, headers: headersOf(headers) });
  return new Response(JSON.stringify(body), { status, statusText, headers: headersOf({ 'Content-Type': 'application/json; charset=utf-8', ...headers }) });
}

export const errorBody = (message: string) => ({ message });

/** The message of every 503: the process is stopping, or a dependency it needs does not answer. */
export const SERVICE_UNAVAILABLE = 'Service unavailable.';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Whether the client sent body bytes (a preflight or a DELETE has none, though `request.body` is a stream anyway). */
export const sentBody = (request: Request) => request.headers.has('transfer-encoding') || Number(request.headers.get('content-length') ?? 0) > 0;

export type BodyResult = { ok: true; value: unknown } | { ok: false; status: 400 | 413 | 415; message: string };

const TOO_LARGE = { ok: false, status: 413, message: 'Payload too large.' } as const;
/** Past the limit a body is still read (and dropped) up to this, so the client gets its 413 instead of a reset connection. */
const DRAIN_BYTES = 8 * MAX_BODY_BYTES;

/**
 * A request's body bytes, at most 1 MiB whatever the transfer encoding: a declared
 * `Content-Length` over it is refused at once; a chunked body is counted as it streams.
 */
// Requests whose body was read to the end (the Request's own `bodyUsed` stays false when its stream is iterated).
const drained = new WeakSet<Request>();

/** Whether the whole body was read, so the connection is ready for the next request. */
export const bodyDrained = (request: Request) => drained.has(request);

// A body is read once: a later read (the provider webhook's route after its gate checked the signature) gets the same bytes.
const bodies = new WeakMap<Request, Promise<{ ok: true; bytes: Buffer } | typeof TOO_LARGE>>();

/**
 * The Node request under a Request that the server adapter made over node:http: its bytes
 * are read from it directly, without the fetch stream's layers over it (about a tenth of
 * a small JSON POST's CPU). A Request made in process has none, and is read as a stream.
 */
const nodeBodies = new WeakMap<Request, AsyncIterable<Uint8Array>>();

/** Reads `request`'s body from `source`, the Node request the server adapter made it from. */
export function bodyFrom(request: Request, source: AsyncIterable<Uint8Array>): void {
  nodeBodies.set(request, source);
}

export function readBody(request: Request): Promise<{ ok: true; bytes: Buffer } | typeof TOO_LARGE> {
  let read = bodies.get(request);
  if (!read) bodies.set(request, (read = readBodyOnce(request)));
  return read;
}

async function readBodyOnce(request: Request): Promise<{ ok: true; bytes: Buffer } | typeof TOO_LARGE> {
  if (Number(request.headers.get('content-length') ?? '0') > MAX_BODY_BYTES) return TOO_LARGE;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const source = nodeBodies.get(request) ?? (request.body as unknown as AsyncIterable<Uint8Array> | null);
  if (source) {
    for await (const chunk of source) {
      size += chunk.byteLength;
      if (size > DRAIN_BYTES) return TOO_LARGE;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    }
  }
  drained.add(request);
  return size > MAX_BODY_BYTES ? TOO_LARGE : { ok: true, bytes: Buffer.concat(chunks) };
}

// JSON text is UTF-8 (RFC 8259): bytes that are not are a malformed body, not text to repair.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Reads a JSON body: none is `{}`; a body needs `Content-Type: application/json`
 * (415), at most 1 MiB (413), and must be UTF-8 that parses (400).
 */
export async function readJsonBody(request: Request): Promise<BodyResult> {
  const body = await readBody(request);
  if (!body.ok) return body;
  if (isBlank(body.bytes)) return { ok: true, value: {} };
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type)) {
    return { ok: false, status: 415, message: 'Unsupported media type: send Content-Type: application/json.' };
  }
  try {
    return { ok: true, value: JSON.parse(utf8.decode(body.bytes)) };
  } catch {
    return { ok: false, status: 400, message: 'Malformed JSON body.' };
  }
}

/** Only JSON's whitespace, or nothing. */
const isBlank = (bytes: Buffer) => bytes.every((b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d);
