import { type GraphQLError, type GraphQLSchema, Kind } from 'graphql';
import { type Admit, type Context, longReadsOf } from '../graphql/context.js';
import { codeOf, invalid } from '../graphql/errors.js';
import { PREPARED } from '../events/mutations.js';
import { type OperationResult, runOperation, runSubscription } from '../graphql/operations.js';
import type { Metrics } from '../http/metrics.js';
import { GatheredWrites, STREAM_GATHER_MS } from '../http/gathered-writes.js';
import { type FieldErrors, Messages, noFieldErrors } from '../validation/messages.js';
import { FORBIDDEN_MESSAGE, type Scope, allows, routeScope } from '../auth/scopes.js';
import { SERVICE_UNAVAILABLE, errorBody, headersOf, json, readJsonBody, sentBody } from '../http/responses.js';
import { Response } from '@whatwg-node/fetch';
import { logError } from '../log.js';
import { jsonValueErrors } from '../validation/json-values.js';
import type { RequestFacts } from '../http/request-facts.js';
import { coerceVariables } from './coerce.js';
import { type ListResult, listEnvelope } from './list-envelope.js';
import { type Column, csvWriter, exportColumns } from './csv-export.js';
import { type CompiledDocument, compileDocument } from './documents.js';
import { type Idempotency, MAX_KEY_LENGTH, type Outcome, fingerprint } from './idempotency.js';
import type { RestRoute } from './route.js';
import { providerOf } from '../db/client.js';
import { lostRace } from '../db/errors.js';
import { reached } from '../http/crash-points.js';

interface CompiledRoute extends RestRoute {
  segments: string[];
  scope: Scope;
  compiled: CompiledDocument;
  /** A CSV export's columns, read from its document once. */
  columns?: Column[];
  /** A stream route: each event's message, encoded once for all its streams (keyed by the event object the live tail hands to each). */
  messages?: WeakMap<object, Uint8Array>;
}

/**
 * Rows a CSV export reads a query. Beside short requests a page is the longest the export
 * holds the event loop (API.md section 5): its answer is worked through in one go, however
 * the export is paced. On PostgreSQL the rows are also parsed on this thread (on SQLite the
 * worker thread reads them), so its pages are smaller. With no short request for a while
 * (LongReadPacing's `quiet`), pages are 500 rows, which cost least per row (SQLite takes at
 * most 999 values in one statement, and a page's relations are loaded with its ids).
 */
const EXPORT_PAGE_SIZE = { sqlite: 100, postgresql: 50, quiet: 500 } as const;

const defaultStatus = (method: RestRoute['method']) => (method === 'POST' ? 201 : method === 'DELETE' ? 204 : 200);
const splitPath = (path: string) => path.split('/').filter(Boolean);

/**
 * The routes whose path fits, each with its parameters and how many literal segments
 * it has: among those allowing the method, the most literal wins
 * (`PUT /contacts/upsert` over `PUT /contacts/{id}`). Only routes of the same length
 * and first segment (every path starts with its resource) are tried.
 */
function match(routes: RouteTable, segments: string[]) {
  const fits: { route: CompiledRoute; params: Record<string, string>; literals: number }[] = [];
  for (const route of routes.get(bucketOf(segments)) ?? []) {
    const params: Record<string, string> = {};
    let literals = 0;
    const ok = route.segments.every((s, i) => {
      if (s.startsWith('{')) return (params[s.slice(1, -1)] = decodeURIComponent(segments[i]!)), true;
      literals += 1;
      return s === segments[i];
    });
    if (ok) fits.push({ route, params, literals });
  }
  return fits.sort((a, b) => b.literals - a.literals);
}

type RouteTable = Map<string, CompiledRoute[]>;
const bucketOf = (segments: string[]) => `${segments.length} ${segments[0]}`;

/**
 * The REST face: each route runs its GraphQL operation in-process with the same
 * context as /graphql, and maps error codes to statuses. No business logic here.
 */
export function createRestAdapter(
  schema: GraphQLSchema,
  table: RestRoute[],
  gate: Admit,
  idempotent: Idempotency,
  options: { prefix?: string; metrics?: Pick<Metrics, 'exportRows'> } = {},
) {
  const { prefix = '/api/v1', metrics } = options;
  const routes: RouteTable = new Map();
  for (const r of table) {
    // Each document is parsed and validated on its route's first request, not at start: that
    // was a tenth of a start's CPU. test/contract.test.ts compiles every route's document.
    let compiled: CompiledDocument | undefined;
    let columns: Column[] | undefined;
    const messages = r.stream ? new WeakMap<object, Uint8Array>() : undefined;
    const route: CompiledRoute = {
      ...r,
      segments: splitPath(r.path),
      scope: routeScope(r),
      messages,
      get compiled() {
        return (compiled ??= compileDocument(schema, r.document, `${r.method} ${r.path}`));
      },
      get columns() {
        return r.csv ? (columns ??= exportColumns(schema, this.compiled.document, this.compiled.operation)) : undefined;
      },
    };
    if (route.segments[0]!.startsWith('{')) throw new Error(`${r.method} ${r.path}: a path starts with its resource, not a parameter`);
    const bucket = bucketOf(route.segments);
    routes.set(bucket, [...(routes.get(bucket) ?? []), route]);
  }

  /** `url` is the request's, already parsed by the server. */
  return async function handle(request: Request, facts: RequestFacts, url: URL): Promise<Response> {
    const { requestId } = facts;
    const base = { 'X-Request-Id': requestId };
    let segments: string[];
    try {
      segments = splitPath(url.pathname.slice(prefix.length));
    } catch {
      return json(404, errorBody('Not found.'), base);
    }
    let candidates: ReturnType<typeof match>;
    try {
      candidates = match(routes, segments);
    } catch {
      return json(404, errorBody('Not found.'), base); // undecodable %-escapes
    }
    if (candidates.length === 0) return json(404, errorBody('Not found.'), base);
    // HEAD runs the GET route (the server drops the body); it never matches anything else.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const found = candidates.find((c) => c.route.method === method);
    if (!found) {
      const allow = [...new Set(candidates.flatMap((c) => (c.route.method === 'GET' ? ['GET', 'HEAD'] : [c.route.method])))].join(', ');
      return json(405, errorBody('Method not allowed.'), { ...base, Allow: allow });
    }

    facts.route = `${request.method} ${prefix}${found.route.path}`;
    const admission = await gate(request, facts, found.params);
    const headers = { ...base, ...admission.headers };
    if (!admission.ok) return json(admission.status, errorBody(admission.message), headers);
    // Before any body is read: a key without the route's scope costs nothing more.
    const { scopes } = admission.context;
    if (scopes && !allows(scopes, found.route.scope)) return json(403, errorBody(FORBIDDEN_MESSAGE), headers);
    const refuse = (errors: FieldErrors) => respond(unprocessable(invalid(errors)), headers);

    const { route, params } = found;
    const raw: Record<string, unknown> = { ...params };
    // The body as sent, for the Idempotency-Key's fingerprint.
    let sent: unknown;
    // A batch (API.md section 8) takes its items from the body's `inputs` into `$inputs`.
    const batch = route.compiled.variableNames.has('inputs');
    if (batch || route.compiled.variableNames.has('input')) {
      const body = await readJsonBody(request);
      if (!body.ok) return json(body.status, errorBody(body.message), headers);
      if (typeof body.value !== 'object' || body.value === null || Array.isArray(body.value)) {
        return refuse({ body: ['The body must be a JSON object.'] });
      }
      // NUL characters and over-deep nesting are refused before any code walks the body.
      const unreadable = jsonValueErrors(body.value);
      if (Object.keys(unreadable).length > 0) return refuse(unreadable);
      sent = body.value;
      // Left out, `inputs` is still named, so that coercion reports it required.
      if (batch) raw.inputs = (body.value as Record<string, unknown>).inputs;
      else raw.input = body.value;
    } else if (sentBody(request) && request.body) {
      // A route that takes no input (activate, every DELETE) checks a body sent anyway by the
      // same rules (415, 413, 400), then ignores its content. A GET's or HEAD's body never
      // reaches us (the server adapter drops it): left unread, the connection is closed.
      const body = await readJsonBody(request);
      if (!body.ok) return json(body.status, errorBody(body.message), headers);
    }
    if (route.csv) return exportCsv(route, url, admission.context, requestId, headers);
    if (route.stream) return serveStream(route, url, request, admission.context, requestId, headers);
    const key = request.method === 'POST' ? request.headers.get('idempotency-key') : null;
    if (key === null) return respond(await runRoute(route, raw, url, admission.context, requestId), headers);
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      return refuse({ idempotency_key: [`The Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} characters.`] });
    }
    // A write that calls a provider first (its mutation's `prepare`) does so here, outside the key's transaction.
    if (preparesFirst(schema, route)) {
      const context = { ...admission.context, prepared: new Map<string, unknown>() };
      const prepared = await runRoute(route, raw, url, { ...context, preparing: true }, requestId);
      if (prepared !== PREPARED_OUTCOME) return respond(prepared, headers);
      admission.context.prepared = context.prepared;
    }
    const result = await idempotent(admission.context, key, { path: url.pathname, hash: fingerprint(request.method, url.pathname, sent) }, (context) =>
      runRoute(route, raw, url, context, requestId, {}, { retried: true }),
    );
    if ('conflict' in result) {
      if (result.conflict === 'mismatch') return refuse({ idempotency_key: ['The Idempotency-Key was already used with another request.'] });
      if (result.conflict === 'unavailable') return json(503, errorBody(SERVICE_UNAVAILABLE), { ...headers, 'Retry-After': '1' });
      return json(409, errorBody('A request with this Idempotency-Key is still in progress; retry later.'), { ...headers, 'Retry-After': '1' });
    }
    reached('response:ready');
    return respond(result, result.replayed ? { ...headers, 'Idempotent-Replayed': 'true' } : headers);
  };

  /**
   * A CSV export: the route's list walked by cursor, EXPORT_PAGE_SIZE rows a query, each
   * page read when the client has taken the one before (the stream's pull), so memory
   * stays flat whatever the list's length. The first page runs before the answer starts:
   * a bad filter or sort is still a 422.
   */
  async function exportCsv(route: CompiledRoute, url: URL, admitted: Context, requestId: string, headers: Record<string, string>): Promise<Response> {
    const walked = ['page', 'per_page', 'cursor'].filter((p) => url.searchParams.has(p));
    if (walked.length > 0) return respond(unprocessable(invalid(Object.fromEntries(walked.map((p) => [p, [`The ${p} parameter is not supported.`]])))), headers);
    // Every page read on the long reads' connections (src/db/client.ts), so that it holds none that short requests use.
    const db = longReadsOf(admitted);
    const besideRequests = EXPORT_PAGE_SIZE[providerOf(db)];
    const page = (cursor: string, size: number) => runRoute(route, {}, url, { ...admitted, db, exportPageSize: size }, requestId, { cursor });
    const first = await page('', besideRequests);
    if (first.status !== 200) return respond(first, headers);
    const writer = csvWriter(route.columns!, (await route.csv!.propertyKeys?.(admitted)) ?? []);
    const encoder = new TextEncoder();
    const list = route.path.split('/')[1]!;
    // The next page is asked for before this one is formatted: its statements run on the long
    // reads' connection (a worker thread on SQLite) while this thread writes CSV.
    const ahead = (cursor: string | null) =>
      cursor === null ? null : (admitted.nextLongReadPage?.() ?? Promise.resolve({ quiet: false })).then(({ quiet }) => page(cursor, quiet ? EXPORT_PAGE_SIZE.quiet : besideRequests));
    let pending = ahead((first.body as ListResult).next_cursor);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const { data } = first.body as ListResult;
        controller.enqueue(encoder.encode(writer.header() + writer.rows(data as never)));
        metrics?.exportRows(list, data.length);
      },
      async pull(controller) {
        if (pending === null) return controller.close();
        const more = await pending;
        // The status line is gone: a failure can only cut the answer short (logged by runRoute if it is ours).
        if (more.status !== 200) return controller.error(new Error(`export of ${route.path} stopped: ${more.status}`));
        const result = more.body as ListResult;
        pending = ahead(result.next_cursor);
        controller.enqueue(encoder.encode(writer.rows(result.data as never)));
        metrics?.exportRows(list, result.data.length);
      },
      cancel() {
        // A client gone mid-export: the page asked for ahead is let go (it only reads).
        pending?.catch(() => {});
        pending = null;
      },
    });
    const filename = `${list}.csv`;
    return new Response(body, { status: 200, headers: headersOf({ ...headers, 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${filename}"` }) });
  }

  /**
   * A stream route (API.md section 10): the events its subscription yields as Server-Sent Events (its `message`),
   * each `id:` the event's id, `event:` its type, `data:` the event as its GET answers it.
   * `Last-Event-ID` is `since` when the query does not name one. The headers go out at
   * once; a comment every 15 s keeps proxies from closing a quiet stream. A client that
   * stops reading is cut off once `streamBufferEvents` messages wait for it.
   */
  async function serveStream(route: CompiledRoute, url: URL, request: Request, admitted: Context, requestId: string, headers: Record<string, string>): Promise<Response> {
    const fromQuery = queryVariables(schema, route, url.searchParams);
    if (Object.keys(fromQuery.errors).length > 0) return respond(unprocessable(invalid(fromQuery.errors)), headers);
    const lastEventId = request.headers.get('last-event-id');
    const variables = { ...fromQuery.variables, ...(lastEventId && !('since' in fromQuery.variables) ? { since: lastEventId } : {}) };
    const started = await runSubscription(schema, route.compiled.document, variables, admitted);
    if (!started.ok) return respond(errorOutcome(started, requestId, route, false), headers);
    const results = started.results;
    const encoder = new TextEncoder();
    const { message } = route.stream!;
    const messages = route.messages!;
    /** The message of one event, written and encoded once for every stream. */
    const messageOf = (event: object): Uint8Array => {
      let bytes = messages.get(event);
      if (!bytes) messages.set(event, (bytes = encoder.encode(message(event))));
      return bytes;
    };
    let keepAlive: NodeJS.Timeout | undefined;
    let writes: GatheredWrites | undefined;
    let gone: (() => void) | undefined;
    const stop = () => {
      clearInterval(keepAlive);
      writes?.stop();
      if (gone) request.signal.removeEventListener('abort', gone);
      void results.return(undefined);
    };
    // The messages of a chunk, when more than one: the bound counts messages, not chunks.
    const messagesIn = new WeakMap<Uint8Array, number>();
    const body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          // Messages that come close together go out as one chunk, so one write to the socket: a write
          // per message per stream cost more than all the rest of the delivery.
          const gathered = (writes = new GatheredWrites(STREAM_GATHER_MS, (chunks) => {
            const chunk = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
            if (chunks.length > 1) messagesIn.set(chunk, chunks.length);
            controller.enqueue(chunk);
          }));
          const send = (bytes: Uint8Array) => {
            // desiredSize counts messages not yet taken by the connection (less those gathered): this many waiting, the reader is dropped.
            if ((controller.desiredSize ?? 1) - gathered.pending <= 0) throw new Error('reader too slow');
            gathered.push(bytes);
          };
          // The request's signal is aborted when the connection closes: the server adapter cancels a body
          // only on a request's error, so a client that closes its side would keep its place until a write failed.
          gone = () => {
            stop();
            controller.error(new Error('the client went away'));
          };
          request.signal.addEventListener('abort', gone, { once: true });
          send(encoder.encode(': stream open\n\n'));
          keepAlive = setInterval(() => {
            try {
              send(encoder.encode(': keep-alive\n\n'));
            } catch {
              stop();
              controller.error(new Error('reader too slow'));
            }
          }, STREAM_KEEP_ALIVE_MS);
          void (async () => {
            try {
              for await (const event of results) send(messageOf(event as object));
              clearInterval(keepAlive);
              gathered.flush();
              controller.close();
            } catch (error) {
              stop();
              controller.error(error);
            }
          })();
        },
        cancel: stop,
      },
      { highWaterMark: admitted.settings.streamBufferEvents, size: (chunk) => (chunk && messagesIn.get(chunk)) ?? 1 },
    );
    return new Response(body, {
      status: 200,
      headers: headersOf({ ...headers, 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' }),
    });
  }

  /** Runs a route's operation; every answer, success or error, is an outcome (500s included, already logged). */
  /** `retried`: the caller runs the route in its own transaction and runs it again when it loses a race (so such a loss is not logged here). */
  async function runRoute(route: CompiledRoute, raw: Record<string, unknown>, url: URL, admitted: Context, requestId: string, overrides: Record<string, unknown> = {}, options: { retried?: boolean } = {}): Promise<Outcome> {
    const fromBody = coerceVariables(schema, route.compiled.operation, raw, 'body');
    const fromQuery = queryVariables(schema, route, url.searchParams);
    const typeErrors = { ...fromBody.errors, ...fromQuery.errors };
    const context: Context = { ...admitted, inputTypeErrors: Object.keys(typeErrors).length ? typeErrors : undefined };
    const variableValues = { ...fromBody.variables, ...fromQuery.variables, ...overrides };
    // A required variable (a path's id) that coercion had to leave out: nothing can run without it.
    const missing = (route.compiled.operation.variableDefinitions ?? []).some((d) => d.type.kind === Kind.NON_NULL_TYPE && !(d.variable.name.value in variableValues));
    if (context.inputTypeErrors && missing) return unprocessable(invalid(context.inputTypeErrors));

    const result = await runOperation(schema, route.compiled.document, variableValues, context);
    if (!result.ok && result.thrown instanceof Error && codeOf(result.thrown as { extensions?: Record<string, unknown> }) === PREPARED) return PREPARED_OUTCOME;
    if (!result.ok) return errorOutcome(result, requestId, route, options.retried ?? false);
    // Resolvers report type errors through parseInput; one that takes no input still must not succeed.
    if (context.inputTypeErrors) return unprocessable(invalid(context.inputTypeErrors));

    const { data } = result;
    const status = typeof route.status === 'function' ? route.status(data) : (route.status ?? defaultStatus(route.method));
    const body = route.unwrap ? route.unwrap(data) : Object.values(data)[0];
    for (const path of route.omitWhenNull ?? []) withoutNull(body, path.split('.'));
    return { status, body: route.compiled.variableNames.has('cursor') && !route.csv ? listEnvelope(body as ListResult, url) : body };
  }
}

/** Deletes the key at `path` under `value` when it is null (API.md shows some keys only when they hold something). */
function withoutNull(value: unknown, path: string[]): void {
  if (typeof value !== 'object' || value === null) return;
  // A list: each of its items (a timeline's `data.changes`).
  if (Array.isArray(value)) return value.forEach((item) => withoutNull(item, path));
  const [key, ...rest] = path;
  const object = value as Record<string, unknown>;
  if (rest.length > 0) withoutNull(object[key!], rest);
  else if (object[key!] === null) delete object[key!];
}

/** What a preparing run (src/events/mutations.ts) of a route ends with when its preparation succeeded. */
const PREPARED_OUTCOME: Outcome = { status: 0, body: null };

/** Whether the route's mutation calls out before it writes (its field's `extensions.prepare`). */
function preparesFirst(schema: GraphQLSchema, route: CompiledRoute): boolean {
  const { operation } = route.compiled;
  if (operation.operation !== 'mutation') return false;
  const fields = schema.getMutationType()?.getFields() ?? {};
  return operation.selectionSet.selections.some((s) => s.kind === Kind.FIELD && fields[s.name.value]?.extensions?.prepare !== undefined);
}

/** A 503 (the embedded database stayed locked by another process) says when to try again. */
const respond = (outcome: Outcome, headers: Record<string, string>) => json(outcome.status, outcome.body, outcome.status === 503 ? { ...headers, 'Retry-After': '1' } : headers);

/** How often a quiet event stream sends a comment line (API.md section 10). */
const STREAM_KEEP_ALIVE_MS = 15_000;

/** The list parameters and the variables they fill (API.md sections 2 and 8). */
const LIST_PARAMETERS: Record<string, string> = {
  page: 'page',
  per_page: 'perPage',
  sort: 'sort',
  cursor: 'cursor',
  updated_since: 'updatedSince',
  created_since: 'createdSince',
};

/** The list parameters and the route's own fill their variables; other parameters fill `$filter`, and are refused where there is none. */
function queryVariables(schema: GraphQLSchema, route: CompiledRoute, search: URLSearchParams) {
  const { compiled, parameters = {} } = route;
  const names = compiled.variableNames;
  if (!Object.values(LIST_PARAMETERS).some((v) => names.has(v)) && !names.has('filter') && Object.keys(parameters).length === 0) return { variables: {}, errors: {} };
  // Keys come from the client: maps without a prototype, so `constructor` or `__proto__` is just an unknown parameter.
  const raw: Record<string, unknown> = Object.create(null);
  const filter: Record<string, unknown> = Object.create(null);
  for (const [key, value] of search) {
    const variable = Object.hasOwn(parameters, key) ? parameters[key]! : Object.hasOwn(LIST_PARAMETERS, key) ? LIST_PARAMETERS[key]! : undefined;
    if (variable && names.has(variable)) raw[variable] = value;
    else filter[key] = value;
  }
  const extra = noFieldErrors();
  if (names.has('filter')) raw.filter = filter;
  else for (const key of Object.keys(filter)) extra[key] = [`The ${key} parameter is not supported.`];
  const coerced = coerceVariables(schema, compiled.operation, raw, 'query');
  // A parameter the route's document requires (search's `q`) and the request left out.
  for (const [parameter, variable] of Object.entries(parameters)) {
    const definition = compiled.operation.variableDefinitions?.find((d) => d.variable.name.value === variable);
    if (definition?.type.kind === Kind.NON_NULL_TYPE && !(variable in raw)) extra[parameter] = [Messages.required(parameter)];
  }
  return { variables: coerced.variables, errors: { ...coerced.errors, ...extra } };
}

function unprocessable(error: GraphQLError): Outcome {
  return { status: 422, body: { message: error.message, errors: error.extensions.errors } };
}

function errorOutcome(failed: Extract<OperationResult, { ok: false }>, requestId: string, route: RestRoute, retried: boolean): Outcome {
  const { status, error, thrown } = failed;
  // The error as thrown goes with the answer: a caller running the route in its own transaction may run it again.
  if (status === 422) return { ...unprocessable(error!), error: thrown };
  if (error && (status < 500 || status === 502 || status === 503)) return { status, body: errorBody(error.message), error: thrown };
  // A race lost inside a caller's transaction is that caller's to run again (and to log if no run wins it).
  if (!(retried && lostRace(thrown))) logError(requestId, thrown, `${route.method} ${route.path}`);
  return { status: 500, body: errorBody('Server error.'), error: thrown };
}
