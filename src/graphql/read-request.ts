import { isUtf8 } from 'node:buffer';

/**
 * What the checks below make of a GraphQL request: refused (why), or readable, with the
 * JSON body already parsed when Yoga would read it as JSON, so that Yoga is handed that
 * value (src/graphql/yoga.ts) rather than parsing the bytes a second time.
 */
export type Reading = { ok: false; message: string } | { ok: true; json?: object };

/**
 * Whether Yoga should be handed this GraphQL request: requests Yoga itself would
 * mishandle are refused. Bytes that are not UTF-8 it decodes into replacement
 * characters and runs; JSON that does not parse it answers 200 to a client accepting
 * `application/json`; `variables` or `extensions` that are not JSON (a GET's query, a
 * form POST's body) it lets through as a logged server error, and so a batch (a JSON
 * array) with an item that is not an object. Each is a 400 BAD_REQUEST
 * here, worded as Yoga words its own answers, whatever the client accepts.
 * `body`: a POST's bytes, already read within the size limit.
 */
export function readGraphQLRequest(request: Request, body?: Buffer): Reading {
  let params: URLSearchParams | undefined;
  let json: object | undefined;
  if (request.method === 'GET') params = new URL(request.url).searchParams;
  else if (body) {
    if (!isUtf8(body)) return refused('Malformed JSON body: it is not UTF-8.');
    if (isForm(request)) params = new URLSearchParams(body.toString('utf8'));
    else if (isJson(request)) {
      const parsed = jsonOf(body.toString('utf8'));
      if (parsed === INVALID) return refused('POST body sent invalid JSON.');
      // Yoga's batching reads `.variables` of each item: a null would be a server error.
      if (Array.isArray(parsed) && parsed.some((item) => typeof item !== 'object' || item === null || Array.isArray(item))) return refused('Each request of a batch must be a JSON object.');
      // Any other value (null, a number) is left to Yoga's own parser, which words its refusal.
      if (typeof parsed === 'object' && parsed !== null && yogaReadsAs(request, 'application/json', 'application/graphql+json')) json = parsed;
    }
  }
  for (const name of ['variables', 'extensions'] as const) {
    // An empty value is none, as Yoga reads it.
    const value = params?.get(name);
    if (value && !parses(value)) return refused(`Expected "${name}" param to be empty or an object, but given invalid JSON.`);
  }
  return { ok: true, json };
}

const refused = (message: string): Reading => ({ ok: false, message });

/** Whether Yoga picks the parser for one of `types` (its own test: the first listed type, parameters allowed). */
function yogaReadsAs(request: Request, ...types: string[]): boolean {
  const type = (request.headers.get('content-type') ?? '').split(',')[0]!;
  return types.some((expected) => type === expected || type.startsWith(`${expected};`));
}

const isForm = (request: Request) => yogaReadsAs(request, 'application/x-www-form-urlencoded');

/** Whether the body is JSON by its type (any `+json` too): its bytes must parse, whichever parser Yoga picks. */
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
