import { isUtf8 } from 'node:buffer';

/**
 * Why Yoga should not be handed this GraphQL request, if it should not: requests Yoga
 * itself would mishandle. Bytes that are not UTF-8 it decodes into replacement
 * characters and runs; JSON that does not parse it answers 200 to a client accepting
 * `application/json`; `variables` or `extensions` that are not JSON (a GET's query, a
 * form POST's body) it lets through as a logged server error, and so a batch (a JSON
 * array) with an item that is not an object. Each is a 400 BAD_REQUEST
 * here, worded as Yoga words its own answers, whatever the client accepts.
 * `body`: a POST's bytes, already read within the size limit.
 */
export function unreadable(request: Request, body?: Buffer): string | undefined {
  let params: URLSearchParams | undefined;
  if (request.method === 'GET') params = new URL(request.url).searchParams;
  else if (body) {
    if (!isUtf8(body)) return 'Malformed JSON body: it is not UTF-8.';
    if (isForm(request)) params = new URLSearchParams(body.toString('utf8'));
    else if (isJson(request)) {
      const parsed = jsonOf(body.toString('utf8'));
      if (parsed === INVALID) return 'POST body sent invalid JSON.';
      // Yoga's batching reads `.variables` of each item: a null would be a server error.
      if (Array.isArray(parsed) && parsed.some((item) => typeof item !== 'object' || item === null || Array.isArray(item))) return 'Each request of a batch must be a JSON object.';
    }
  }
  for (const name of ['variables', 'extensions'] as const) {
    // An empty value is none, as Yoga reads it.
    const value = params?.get(name);
    if (value && !parses(value)) return `Expected "${name}" param to be empty or an object, but given invalid JSON.`;
  }
  return undefined;
}

/** Whether Yoga reads this POST as a form (its own test: the first listed type, parameters allowed). */
function isForm(request: Request): boolean {
  const type = (request.headers.get('content-type') ?? '').split(',')[0]!;
  return type === 'application/x-www-form-urlencoded' || type.startsWith('application/x-www-form-urlencoded;');
}

/** Whether Yoga reads this POST as JSON. */
const isJson = (request: Request) => /^application\/(json|[\w.+-]+\+json)\s*(;|$)/i.test(request.headers.get('content-type') ?? '');

const INVALID = Symbol('invalid JSON');

/** The JSON value of `text`, or INVALID. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return INVALID;
  }
}

const parses = (text: string) => jsonOf(text) !== INVALID;
