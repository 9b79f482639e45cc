import { STATUS_CODES } from 'node:http';
import { type GraphQLInputObjectType, type GraphQLInputType, type GraphQLSchema, isEnumType, isInputObjectType, isListType, isNonNullType, typeFromAST } from 'graphql';
import { z } from 'zod';
import { MAX_BATCH_ITEMS } from '../graphql/batch.js';
import { pageRules } from '../graphql/pagination.js';
import { type CompiledDocument, compileDocument } from '../rest/documents.js';
import { MAX_KEY_LENGTH } from '../rest/idempotency.js';
import type { RestRoute } from '../rest/route.js';
import { snakeCase } from '../validation/messages.js';
import { type JsonSchema, describe, enumSchema, inputSchemas, namedOrList, orNull, ref, scalarSchema } from './json-schema.js';
import { type Node, type Shape, leafValues, operationShape, sampleValue, standIn } from './shapes.js';

type Section = Record<string, JsonSchema>;
export type OpenApiDocument = JsonSchema & {
  openapi: string;
  paths: Record<string, Section>;
  components: { schemas: Section; responses: Section; parameters: Section; headers: Section; securitySchemes: Section };
};

export interface OpenApiSources {
  schema: GraphQLSchema;
  routes: RestRoute[];
  /** The routes that take no key (API.md section 7): the payer's (`/public/...`) and the providers' signed webhooks. */
  publicRoutes?: RestRoute[];
  /** Each input type's zod rules (src/graphql/inputs.ts). */
  inputRules: Map<string, z.ZodObject>;
  version: string;
  /** Where the REST routes are mounted. */
  basePath?: string;
}

const defaultStatus = (method: RestRoute['method']) => (method === 'POST' ? 201 : method === 'DELETE' ? 204 : 200);
const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
const words = (name: string) => name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);

/** Error answers every route shares (src/rest/adapter.ts, src/http/gate.ts, src/http/responses.ts). */
const ERRORS = {
  MalformedJson: { status: 400, description: 'The body is not valid JSON.', message: 'Malformed JSON body.' },
  Unauthenticated: { status: 401, description: 'No `X-Api-Key`, or an unknown, revoked or expired one.', message: 'Unauthenticated.' },
  Forbidden: { status: 403, description: 'The key\'s scopes do not include this route\'s (`<resource>:read` for GET, `<resource>:write` otherwise).', message: 'This action is unauthorized.' },
  NotFound: { status: 404, description: 'No record with this id in the key\'s workspace: `{"message": "<Resource> not found."}`.' },
  IdempotencyConflict: {
    status: 409,
    description: 'A request with this `Idempotency-Key` is still running; retry after `Retry-After` seconds.',
    message: 'A request with this Idempotency-Key is still in progress; retry later.',
  },
  PayloadTooLarge: { status: 413, description: 'The body is over 1 MiB.', message: 'Payload too large.' },
  UnsupportedMediaType: { status: 415, description: 'A body was sent without `Content-Type: application/json`.', message: 'Unsupported media type: send Content-Type: application/json.' },
  ValidationFailed: { status: 422, description: 'Invalid input: every violated field, by its snake_case name (nested ones dotted: `stages.1.name`).' },
  TooManyRequests: { status: 429, description: 'Over the rate limit of this key; retry after `Retry-After` seconds.', message: 'Too Many Attempts.' },
  ServerError: { status: 500, description: 'An unexpected failure, logged with the request id.', message: 'Server error.' },
  ProviderUnreachable: {
    status: 503,
    description: 'A verified delivery that needs the provider to say more (a Stripe invoice\'s payment) while it cannot: nothing is recorded; deliver it again after `Retry-After` seconds.',
    message: 'The provider could not be asked about this event; deliver it again.',
  },
} as const;

type ErrorName = keyof typeof ERRORS;

/**
 * The OpenAPI 3.1 document of the REST face, derived from what runs it: the route
 * table (paths, methods, statuses, unwrap), each route's GraphQL document walked
 * against the schema (response fields), the input types' zod rules (request bodies)
 * and the filter input types (query parameters). Deterministic: built once at start.
 */
export function buildOpenApiDocument({ schema, routes, publicRoutes = [], inputRules, version, basePath = '/api/v1' }: OpenApiSources): OpenApiDocument {
  const requests = inputSchemas(schema, inputRules);
  const keyless = new Set(publicRoutes);
  const built = [...routes, ...publicRoutes].map((route) => describeRoute(schema, route));
  const names = nameShapes(built.flatMap((b) => (b.body ? [b.body] : [])));
  const components: Record<string, JsonSchema> = {};
  for (const part of [requests, names.schemas, errorSchemas()]) {
    for (const [name, value] of Object.entries(part)) {
      if (name in components) throw new Error(`Two schemas of the OpenAPI document are named ${name}.`);
      components[name] = value;
    }
  }

  const paths: Record<string, Record<string, JsonSchema>> = {};
  const operationIds = new Set<string>();
  for (const b of built) {
    if (operationIds.has(b.operationId)) throw new Error(`Two REST routes make the operationId ${b.operationId}.`);
    operationIds.add(b.operationId);
    const described = operation(schema, b, names.schemaOf, requests, keyless.has(b.route) ? publicAccess(b.route) : undefined);
    (paths[b.route.path] ??= {})[b.route.method.toLowerCase()] = described;
  }
  // The payment pages are HTML for a payer's browser, served beside the API (not under its base path).
  for (const [path, item] of Object.entries(PAGES)) paths[path] = { servers: [{ url: '/', description: 'The service itself.' }] as unknown as JsonSchema, ...item };

  const document: OpenApiDocument = {
    openapi: '3.1.1',
    info: {
      title: 'Salesgraph',
      version,
      description:
        'CRM and payment-link service. Every operation needs an API key in `X-Api-Key`. Field names are snake_case; ' +
        'invalid input is 422 with every violated field; lists are paginated with `page` and `per_page`. ' +
        'Each operation runs the GraphQL field it names at `/graphql`.',
    },
    servers: [{ url: basePath, description: 'This server.' }],
    security: [{ ApiKey: [] }],
    tags: [...[...new Set([...routes, ...publicRoutes].map((r) => tagOf(r.path)))].map((name) => ({ name, description: `Routes under \`/${name}\`.` })), { name: 'pay', description: 'The payment pages (HTML, for a payer\'s browser).' }],
    paths,
    components: {
      schemas: components,
      responses: errorResponses(),
      parameters: sharedParameters(),
      headers: sharedHeaders(),
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'A workspace\'s key: `sg_` and 32 or more characters.' },
        WebhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description:
            'Standard Webhooks: `webhook-id`, `webhook-timestamp` (within 5 minutes) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the account\'s `whsec_` secret).',
        },
      },
    },
  };
  addEnums(schema, document);
  prune(document);
  markEmails(document.components.schemas);
  return document;
}

/** A public route's access: none for the payer's routes (the token in the path is the credential), the signature for a provider's webhook. */
function publicAccess(route: RestRoute): { security: JsonSchema[]; errors: ErrorName[] } {
  return route.path.startsWith('/provider-webhooks/')
    ? { security: [{ WebhookSignature: [] }], errors: ['Unauthenticated', 'ProviderUnreachable'] }
    : { security: [], errors: [] };
}

/** Every `email` property (requests and answers) is an e-mail address. */
function markEmails(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(markEmails);
  if (!value || typeof value !== 'object') return;
  const object = value as Record<string, JsonSchema>;
  const properties = object.properties as Record<string, JsonSchema> | undefined;
  const email = properties?.email;
  if (email && (email.type === 'string' || (Array.isArray(email.type) && email.type.includes('string')))) email.format = 'email';
  for (const v of Object.values(object)) markEmails(v);
}

const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const pageParameter = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
const TOKEN = pageParameter('publicToken', "The payment link's public token.");
const CHECKOUT_ID = pageParameter('checkoutId', 'The checkout id the payment page made.');
const FORM = { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } } } };
const SEE_OTHER = { description: 'See Other: the next page (`Location`).', headers: { Location: { schema: { type: 'string' } } } };

/** The payment pages (API.md section 7, src/modules/checkouts/pages.ts): no key, their own rate limit. */
const PAGES: Record<string, JsonSchema> = {
  '/pay/{publicToken}': {
    get: {
      operationId: 'payPage',
      summary: 'Payment page',
      tags: ['pay'],
      security: [],
      parameters: [TOKEN, { name: 'coupon', in: 'query', required: false, description: 'A coupon code to apply.', schema: { type: 'string' } }],
      responses: { 200: html('The payment page: products, amounts and the installment options.'), 404: html('No active link with this token.'), 429: html('Too many requests from this address.') },
    },
    post: {
      operationId: 'payPageSubmit',
      summary: 'Payment page form',
      tags: ['pay'],
      security: [],
      parameters: [TOKEN],
      requestBody: FORM,
      responses: {
        303: SEE_OTHER,
        200: html('The page again with a coupon applied.'),
        404: html('No active link with this token.'),
        422: html("The page again with the form's errors."),
        429: html('Too many requests from this address.'),
      },
    },
  },
  '/pay/checkouts/{checkoutId}': {
    get: {
      operationId: 'payReceipt',
      summary: 'Checkout receipt',
      tags: ['pay'],
      security: [],
      parameters: [CHECKOUT_ID],
      responses: { 200: html('The checkout: its status, amounts and installments.'), 404: html('No such checkout.'), 429: html('Too many requests from this address.') },
    },
  },
  '/pay/checkouts/{checkoutId}/test-provider': {
    get: {
      operationId: 'payTestProvider',
      summary: 'Test provider page',
      tags: ['pay'],
      security: [],
      parameters: [CHECKOUT_ID],
      responses: {
        200: html("The built-in test provider's page (accounts with provider `test`)."),
        303: SEE_OTHER,
        404: html('No such checkout, or not the test provider.'),
        429: html('Too many requests from this address.'),
      },
    },
    post: {
      operationId: 'payTestProviderSubmit',
      summary: 'Test provider outcome',
      tags: ['pay'],
      security: [],
      parameters: [CHECKOUT_ID],
      requestBody: FORM,
      // Only a redirect succeeds: to the receipt, once the decision is recorded.
      responses: {
        303: SEE_OTHER,
        404: html('No such checkout, or not the test provider.'),
        422: html('The page again: neither Approve nor Decline was chosen.'),
        429: html('Too many requests from this address.'),
      },
    },
  },
};

const tagOf = (path: string) => path.split('/').filter(Boolean)[0]!;

interface BuiltRoute {
  route: RestRoute;
  compiled: CompiledDocument;
  field: string;
  operationId: string;
  /** The response body, after `unwrap`; none for 204. */
  body?: Node;
  statuses: Map<number, string[]>;
}

function describeRoute(schema: GraphQLSchema, route: RestRoute): BuiltRoute {
  const label = `${route.method} ${route.path}`;
  const compiled = compileDocument(schema, route.document, label);
  const data = operationShape(schema, compiled);
  const root = (data.shape as Extract<Shape, { kind: 'object' }>).fields;
  if (root.length !== 1) throw new Error(`REST route ${label}: the OpenAPI document needs exactly one top-level field.`);
  const field = root[0]!;
  const top = compiled.operation.selectionSet.selections[0];
  const name = top?.kind === 'Field' ? top.name.value : field.key;
  // A page is a list's answer (a report's `data` is its rows, not a page: no page or cursor).
  const isPage = compiled.variableNames.has('cursor') && field.node.shape.kind === 'object' && field.node.shape.fields.some((f) => f.key === 'data' && f.node.shape.kind === 'list');
  const kind = compiled.operation.operation;
  const operationId = route.operationId ?? (kind === 'query' ? `${route.csv ? 'export' : isPage ? 'list' : 'get'}${pascal(name)}` : kind === 'subscription' ? `stream${pascal(name)}` : name);

  const statuses = statusesOf(route, data, label);
  let body: Node | undefined = route.unwrap ? unwrapped(route, data, label, name) : field.node;
  for (const path of route.omitWhenNull ?? []) if (body) body = optionalWhenNull(body, path.split('.'), label);
  // A CSV export's rows are no JSON schema (and their extra columns must not name one).
  if ([...statuses.keys()].every((s) => s === 204) || route.csv) body = undefined;
  return { route, compiled, field: name, operationId, body, statuses };
}

/** `body` with the field at `path` optional and never null (the adapter leaves it out when null). */
function optionalWhenNull(body: Node, path: string[], label: string): Node {
  if (body.shape.kind === 'list') return { ...body, shape: { ...body.shape, item: optionalWhenNull(body.shape.item, path, label) } };
  const [key, ...rest] = path;
  if (body.shape.kind !== 'object') throw new Error(`REST route ${label}: omitWhenNull names ${key} under something that is not an object`);
  const fields = body.shape.fields.map((f) => {
    if (f.key !== key) return f;
    return rest.length > 0 ? { ...f, node: optionalWhenNull(f.node, rest, label) } : { ...f, optional: true, node: { ...f.node, nullable: false } };
  });
  if (!body.shape.fields.some((f) => f.key === key)) throw new Error(`REST route ${label}: omitWhenNull names ${key}, which its answer has not`);
  return { ...body, shape: { ...body.shape, fields } };
}

/**
 * What `unwrap` picks: run on a stand-in of `data`, it returns one of its objects, whose
 * node is the body; or an object it builds of such parts (a batch's `{"data": [...]}`,
 * src/graphql/batch.ts), each a part as it is or a list of parts of one node.
 */
function unwrapped(route: RestRoute, data: Node, label: string, field: string): Node {
  const origin = new Map<object, Node>();
  const picked = route.unwrap!(standIn(data, (_path, node) => sampleValue(node), origin, new Map()));
  const part = (value: unknown): Node | undefined => {
    if (typeof value !== 'object' || value === null) return undefined;
    const known = origin.get(value);
    if (known || !Array.isArray(value)) return known;
    const items = value.map(part);
    return items[0] && items.every((item) => item === items[0]) ? { nullable: false, shape: { kind: 'list', item: items[0] } } : undefined;
  };
  let node = part(picked);
  if (!node && typeof picked === 'object' && picked !== null && !Array.isArray(picked)) {
    // A success answers the root field's value, never null (a null comes with an error, answered as one).
    const fields = Object.entries(picked).flatMap(([key, value]) => {
      const found = part(value);
      return found ? [{ key, optional: false, node: { ...found, nullable: false } }] : [];
    });
    if (fields.length > 0 && fields.length === Object.keys(picked).length) {
      // `{"data": [<Type>]}` is a `<Type>Batch`; another built object is named after the operation.
      const only = fields.length === 1 && fields[0]!.key === 'data' ? fields[0]!.node.shape : undefined;
      const listed = only?.kind === 'list' ? only.item.shape : undefined;
      const type =
        listed?.kind === 'object'
          ? { name: `${listed.type.name}Batch`, description: "A batch's records, in the order of its `inputs`." }
          : { name: `${pascal(field)}Result`, description: null };
      node = { nullable: false, shape: { kind: 'object', type, fields } };
    }
  }
  if (!node) throw new Error(`REST route ${label}: its unwrap does not return a part of the result as it is, so the OpenAPI document cannot describe it.`);
  return node;
}

/**
 * The statuses a route answers on success, each with when. A `status` function is
 * run on stand-ins of `data` for every combination of the leaves it reads (booleans
 * and enums), so `created ? 201 : 200` documents both.
 */
function statusesOf(route: RestRoute, data: Node, label: string): Map<number, string[]> {
  if (typeof route.status !== 'function') return new Map([[route.status ?? defaultStatus(route.method), []]]);
  const status = route.status;
  const reads = new Map<string, Node>();
  status(standIn(data, (_path, node) => sampleValue(node), new Map(), reads));
  const leaves = [...reads].map(([path, node]) => {
    const values = leafValues(node);
    if (!values) throw new Error(`REST route ${label}: its status reads ${path}, which has too many values to document.`);
    return { path, values };
  });
  const out = new Map<number, string[]>();
  const combinations = leaves.reduce<Map<string, unknown>[]>((acc, leaf) => acc.flatMap((c) => leaf.values.map((v) => new Map([...c, [leaf.path, v]]))), [new Map()]);
  for (const combination of combinations) {
    const answer = status(standIn(data, (path, node) => (combination.has(path) ? combination.get(path) : sampleValue(node)), new Map(), new Map()));
    const when = [...combination].map(([path, value]) => `\`${path}\` is ${JSON.stringify(value)}`).join(' and ');
    out.set(answer, [...(out.get(answer) ?? []), when]);
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

/**
 * Names the response objects as components: a type's largest field set takes the
 * type's name (`Contact`); a smaller set is named after the one type that embeds it
 * (`DealUser`), or `<Type>Summary` when several do.
 */
function nameShapes(bodies: Node[]) {
  type ObjectShape = Extract<Shape, { kind: 'object' }>;
  const signatures = new Map<ObjectShape, string>();
  const byType = new Map<string, Map<string, { shape: ObjectShape; parents: Set<string> }>>();
  const signature = (node: Node): string => {
    const { shape } = node;
    const own =
      shape.kind === 'object'
        ? `${shape.type.name}{${shape.fields.map((f) => `${f.key}${f.optional ? '?' : ''}:${signature(f.node)}`).join(',')}}`
        : shape.kind === 'list'
          ? `[${signature(shape.item)}]`
          : shape.name;
    return node.nullable ? `${own}|null` : own;
  };
  const visit = (node: Node, parent?: string) => {
    const { shape } = node;
    if (shape.kind === 'list') return visit(shape.item, parent);
    if (shape.kind !== 'object') return;
    const sig = signature({ nullable: false, shape });
    signatures.set(shape, sig);
    const seen = byType.get(shape.type.name) ?? new Map();
    byType.set(shape.type.name, seen);
    const entry = seen.get(sig) ?? { shape, parents: new Set<string>() };
    seen.set(sig, entry);
    if (parent) entry.parents.add(parent);
    for (const f of shape.fields) visit(f.node, shape.type.name);
  };
  bodies.forEach((b) => visit(b));

  const nameOf = new Map<string, string>();
  const taken = new Set<string>();
  const claim = (wanted: string) => {
    let name = wanted;
    for (let i = 2; taken.has(name); i += 1) name = `${wanted}${i}`;
    taken.add(name);
    return name;
  };
  for (const [typeName, shapes] of byType) {
    const entries = [...shapes];
    const largest = entries.reduce((a, b) => (b[1].shape.fields.length > a[1].shape.fields.length ? b : a));
    nameOf.set(largest[0], claim(typeName));
    for (const [sig, { parents }] of entries) {
      if (sig !== largest[0]) nameOf.set(sig, claim(parents.size === 1 ? `${[...parents][0]}${typeName}` : `${typeName}Summary`));
    }
  }

  const schemaOf = (node: Node): JsonSchema => {
    const { shape } = node;
    let schema: JsonSchema;
    if (shape.kind === 'object') schema = ref(nameOf.get(signatures.get(shape)!)!);
    else if (shape.kind === 'list') schema = { type: 'array', items: schemaOf(shape.item) };
    else if (shape.kind === 'enum') schema = ref(shape.name);
    else schema = scalarSchema(shape.name);
    return node.nullable ? orNull(schema) : schema;
  };
  const schemas: Record<string, JsonSchema> = {};
  for (const shapes of byType.values()) {
    for (const [sig, { shape }] of shapes) {
      const required = shape.fields.filter((f) => !f.optional).map((f) => f.key);
      schemas[nameOf.get(sig)!] = {
        type: 'object',
        ...(shape.type.description ? { description: shape.type.description } : {}),
        properties: Object.fromEntries(shape.fields.map((f) => [f.key, describe(schemaOf(f.node), f.description)])),
        required,
        // Responses carry exactly these fields (API.md §2).
        additionalProperties: false,
      };
    }
  }
  return { schemas, schemaOf };
}

function operation(
  schema: GraphQLSchema,
  b: BuiltRoute,
  schemaOf: (node: Node) => JsonSchema,
  requests: Record<string, JsonSchema>,
  access?: { security: JsonSchema[]; errors: ErrorName[] },
): JsonSchema {
  const { route, compiled } = b;
  const variables = new Map((compiled.operation.variableDefinitions ?? []).map((d) => [d.variable.name.value, d]));
  // `$input` is the body; `$inputs` a batch's `inputs` list (src/rest/adapter.ts).
  const hasBody = variables.has('input') || variables.has('inputs');
  const hasParams = route.path.includes('{');
  const rootType = schema.getRootType(compiled.operation.operation)!;
  const description = rootType.getFields()[b.field]?.description;

  const parameters: JsonSchema[] = [];
  for (const segment of route.path.split('/')) {
    const name = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (!name) continue;
    const definition = variables.get(name);
    const type = definition ? typeFromAST(schema, definition.type as never) : undefined;
    parameters.push({ name, in: 'path', required: true, description: 'The record\'s id.', schema: type ? namedOrList(type as never) : { type: 'string' } });
  }
  // An export walks the whole list itself: no page, per_page or cursor.
  const listParameters = route.csv ? [['sort', 'Sort'], ['updatedSince', 'UpdatedSince'], ['createdSince', 'CreatedSince']] : [['page', 'Page'], ['perPage', 'PerPage'], ['sort', 'Sort'], ['cursor', 'Cursor'], ['updatedSince', 'UpdatedSince'], ['createdSince', 'CreatedSince']];
  for (const [variable, name] of listParameters) {
    if (variables.has(variable!)) parameters.push({ $ref: `#/components/parameters/${name}` });
  }
  const filter = variables.get('filter');
  if (filter) {
    const type = typeFromAST(schema, filter.type as never);
    const inner = (type && isNonNullType(type) ? type.ofType : type) as GraphQLInputObjectType | undefined;
    if (!inner || !isInputObjectType(inner)) throw new Error(`REST route ${route.method} ${route.path}: $filter is not an input object.`);
    for (const f of Object.values(inner.getFields())) {
      // A filter field the list parameters shadow (events' createdSince) is not reachable over REST.
      if (listParameters.some(([variable]) => variable === f.name && variables.has(variable))) continue;
      parameters.push({ name: snakeCase(f.name), in: 'query', required: false, ...(f.description ? { description: f.description } : {}), schema: namedOrList(f.type) });
    }
  }
  if (route.method === 'POST') parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });

  const responses: Record<string, JsonSchema> = {};
  for (const [status, conditions] of b.statuses) {
    const headers: JsonSchema = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' }, ...rateLimitHeaders() };
    if (route.method === 'POST') headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
    const when = conditions.length ? ` when ${conditions.join(', or ')}` : '';
    responses[String(status)] = {
      description: `${STATUS_CODES[status]}${when}.`,
      headers,
      ...(route.csv ? { content: CSV_CONTENT } : {}),
      ...(route.stream && status === 200 ? { content: streamContent(b.body!, schemaOf) } : {}),
      ...(b.body && status !== 204 && !(route.stream && status === 200) ? { content: { 'application/json': { schema: variables.has('cursor') ? listSchema(b.body, schemaOf) : schemaOf(b.body) } } } : {}),
    };
  }
  // A route without input still checks a body a client sends (GET's never reaches us).
  const checksBody = hasBody || route.method !== 'GET';
  const errors: ErrorName[] = [
    ...(checksBody ? (['MalformedJson'] as const) : []),
    // A keyed route: no key (401) and a key without the scope (403); a public one: what its access refuses.
    ...(access ? access.errors : (['Unauthenticated', 'Forbidden'] as const)),
    ...(hasParams ? (['NotFound'] as const) : []),
    ...(route.method === 'POST' ? (['IdempotencyConflict'] as const) : []),
    ...(checksBody ? (['PayloadTooLarge', 'UnsupportedMediaType'] as const) : []),
    'ValidationFailed',
    'TooManyRequests',
    'ServerError',
  ];
  for (const name of errors) responses[String(ERRORS[name].status)] = { $ref: `#/components/responses/${name}` };

  let requestBody: JsonSchema | undefined;
  // The input type's zod-derived component; the GraphQL type alone where it has no rules.
  const inputSchema = (type: GraphQLInputType) => {
    const inner = isNonNullType(type) ? type.ofType : type;
    return isInputObjectType(inner) && inner.name in requests ? ref(inner.name) : namedOrList(type);
  };
  if (variables.has('input')) {
    requestBody = { required: true, content: { 'application/json': { schema: inputSchema(typeFromAST(schema, variables.get('input')!.type as never) as GraphQLInputType) } } };
  } else if (variables.has('inputs')) {
    const list = typeFromAST(schema, variables.get('inputs')!.type as never) as GraphQLInputType;
    const inner = isNonNullType(list) ? list.ofType : list;
    if (!isListType(inner)) throw new Error(`REST route ${route.method} ${route.path}: $inputs is not a list.`);
    const inputs = { type: 'array', minItems: 1, maxItems: MAX_BATCH_ITEMS, items: inputSchema(inner.ofType), description: 'The items, each under the rules of one record; all are written, or none.' };
    requestBody = { required: true, content: { 'application/json': { schema: { type: 'object', properties: { inputs }, required: ['inputs'] } } } };
  }

  return {
    operationId: b.operationId,
    summary: pascal(words(b.operationId).trim()),
    description: `${description ? `${description} ` : ''}Runs the GraphQL ${compiled.operation.operation} field \`${b.field}\`.`,
    tags: [tagOf(route.path)],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    ...(access ? { security: access.security } : {}),
    responses,
  };
}

const rateLimitHeaders = () => ({
  'X-RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
});

function errorSchemas(): Record<string, JsonSchema> {
  return {
    Error: {
      type: 'object',
      description: 'Every error answer has a message.',
      properties: { message: { type: 'string' } },
      required: ['message'],
      additionalProperties: false,
    },
    ValidationError: {
      type: 'object',
      properties: {
        message: { type: 'string' },
        errors: { type: 'object', description: 'Why, by snake_case field name.', additionalProperties: { type: 'array', items: { type: 'string' } } },
      },
      required: ['message', 'errors'],
      additionalProperties: false,
    },
  };
}

function errorResponses(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [name, error] of Object.entries(ERRORS) as [ErrorName, (typeof ERRORS)[ErrorName]][]) {
    const headers: JsonSchema = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
    // The key is checked before the rate limit: a 401 has no rate-limit headers.
    if (name !== 'Unauthenticated') Object.assign(headers, rateLimitHeaders());
    if (name === 'TooManyRequests' || name === 'IdempotencyConflict' || name === 'ProviderUnreachable') headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
    const example =
      name === 'ValidationFailed'
        ? { message: 'The given data was invalid.', errors: { email: ['The email field is required.'] } }
        : 'message' in error
          ? { message: error.message }
          : undefined;
    out[name] = {
      description: error.description,
      headers,
      content: { 'application/json': { schema: ref(name === 'ValidationFailed' ? 'ValidationError' : 'Error'), ...(example ? { example } : {}) } },
    };
  }
  return out;
}

/** A CSV export's answer (src/rest/csv-export.ts). */
const CSV_CONTENT = {
  'text/csv': {
    schema: { type: 'string', description: 'RFC 4180: a header row of the REST field names (nested ones with dots, id arrays joined by `;`), then a row per record.' },
  },
};

/**
 * An event stream's answer (API.md section 10): Server-Sent Events, each message's `data`
 * one item of `x-item-schema` (OpenAPI 3.1 has no keyword for a stream's items).
 */
function streamContent(item: Node, schemaOf: (node: Node) => JsonSchema): JsonSchema {
  return {
    'text/event-stream': {
      schema: {
        type: 'string',
        description:
          'Server-Sent Events: a message per event, `id:` its id, `event:` its type, `data:` the event as `GET /events/{id}` answers it; a comment line every 15 s. Resume with `Last-Event-ID`.',
      },
      'x-item-schema': schemaOf(item),
    },
  };
}

/** A list's two envelopes (src/rest/list-envelope.ts): by page, or by cursor when the request has `cursor`. */
function listSchema(page: Node, schemaOf: (node: Node) => JsonSchema): JsonSchema {
  const data = (page.shape as Extract<Shape, { kind: 'object' }>).fields.find((f) => f.key === 'data')!;
  const integer = { type: 'integer' };
  const text = { type: ['string', 'null'] };
  const object = (properties: Record<string, JsonSchema>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });
  return {
    oneOf: [
      object({ current_page: integer, per_page: integer, total: integer, last_page: integer, data: schemaOf(data.node) }),
      object({ data: schemaOf(data.node), path: { type: 'string', format: 'uri' }, per_page: integer, next_cursor: text, next_page_url: text, prev_cursor: text, prev_page_url: text }),
    ],
  };
}

function sharedParameters(): Record<string, JsonSchema> {
  const param = (rule: z.ZodType) => {
    const { $schema: _schema, ...schema } = z.toJSONSchema(rule, { io: 'input' }) as JsonSchema;
    return schema;
  };
  return {
    Page: { name: 'page', in: 'query', required: false, description: 'The page, from 1.', schema: param(pageRules.page) },
    PerPage: { name: 'per_page', in: 'query', required: false, description: 'Items per page.', schema: param(pageRules.perPage) },
    Sort: { name: 'sort', in: 'query', required: false, description: 'Comma-separated fields, `-` for descending; ties by id, nulls last (API.md section 8).', schema: { type: 'string' } },
    Cursor: { name: 'cursor', in: 'query', required: false, description: 'Walk by cursor instead of `page`: empty to start, then a `next_cursor` or `prev_cursor`.', schema: { type: 'string' } },
    UpdatedSince: { name: 'updated_since', in: 'query', required: false, description: 'Only records updated at or after this time.', schema: { type: 'string', format: 'date-time' } },
    CreatedSince: { name: 'created_since', in: 'query', required: false, description: 'Only records created at or after this time.', schema: { type: 'string', format: 'date-time' } },
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'A retry with the same key and body within 24 h returns the first response and creates nothing; the same key with another body is 422.',
      schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH },
    },
  };
}

function sharedHeaders(): Record<string, JsonSchema> {
  return {
    RequestId: { description: 'The request\'s id (the client\'s own `X-Request-Id` when it sent a short plain one).', required: true, schema: { type: 'string' } },
    RateLimitLimit: { description: 'Requests allowed per minute for this key (absent when the limit is off).', schema: { type: 'integer' } },
    RateLimitRemaining: { description: 'Requests left in the current minute.', schema: { type: 'integer' } },
    RetryAfter: { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer' } },
    IdempotentReplayed: { description: '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`.', schema: { type: 'string', enum: ['true'] } },
  };
}

/** Enum components for every enum referenced (responses and GraphQL-described inputs). */
function addEnums(schema: GraphQLSchema, document: OpenApiDocument) {
  const schemas = document.components.schemas;
  for (const name of references(document)) {
    const type = schema.getType(name);
    if (!(name in schemas) && type && isEnumType(type)) schemas[name] = enumSchema(type);
  }
}

/** Drops component schemas no operation reaches (input types only GraphQL uses). */
function prune(document: OpenApiDocument) {
  const schemas = document.components.schemas;
  const reached = new Set<string>();
  const pending = [...references({ paths: document.paths, responses: document.components.responses })];
  while (pending.length) {
    const name = pending.pop()!;
    if (reached.has(name) || !schemas[name]) continue;
    reached.add(name);
    pending.push(...references(schemas[name]));
  }
  document.components.schemas = Object.fromEntries(Object.keys(schemas).sort().filter((n) => reached.has(n)).map((n) => [n, schemas[n]!]));
}

function references(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => references(v, out));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) out.add(v.slice('#/components/schemas/'.length));
      else references(v, out);
    }
  }
  return out;
}
