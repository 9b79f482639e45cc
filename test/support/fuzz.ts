/**
 * Property-based fuzzing over the REST route table and /graphql, shared by
 * `test/fuzz.test.ts` (bounded, fixed seed) and `scripts/fuzz.ts` (long runs).
 *
 * Nothing here imports vitest, so the script can run it in plain Node.
 *
 * The properties, for every route:
 * - never a 5xx (and, through GraphQL, never an INTERNAL_SERVER_ERROR);
 * - every REST error body is a JSON object with a string `message`; every GraphQL
 *   error has a string `message` and a string `extensions.code`;
 * - a refused request (>= 400, or a GraphQL answer with errors and no data)
 *   changes nothing in the workspace.
 * Requests go in batches: one snapshot of the workspace before and one after a
 * batch in which no write succeeded; a batch with a successful write replays its
 * refused requests one by one between snapshots instead.
 *
 * The public routes (`publicRoutes`: the payer's API and the providers' signed
 * webhooks) are fuzzed by the same functions with `{ keyless: true }`: no key is sent,
 * and the path's credential comes from `seedPublic`. The payer's HTML pages under
 * /pay/ have `fuzzPages`: never a 5xx, and every answer but a redirect is text/html.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import {
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  typeFromAST,
} from 'graphql';
import { createKey } from '../../src/auth/api-keys.js';
import type { Database } from '../../src/db/client.js';
import { newId } from '../../src/db/ids.js';
import { schema } from './schema.js';
import { restRoutes } from '../../src/modules/index.js';
import { compileDocument } from '../../src/rest/documents.js';
import type { RestRoute } from '../../src/rest/route.js';
import { snakeCase } from '../../src/validation/messages.js';
import { type Reply, send } from './http.js';
import { snapshotWorkspace } from './snapshot.js';

export { type Reply, send };

// ---------------------------------------------------------------------------
// Settings

export interface FuzzSettings {
  /** FUZZ_SEED: the fast-check seed of every property (each route and kind of request). */
  seed: number;
  /** FUZZ_RUNS: batches of requests per route and kind of request. */
  runs: number;
  /** Requests per batch, at most. */
  batch: number;
  /** How long one property may keep shrinking a failure, in ms. */
  shrinkMs: number;
}

export function fuzzSettings(defaults: Partial<FuzzSettings> = {}): FuzzSettings {
  const num = (name: string, fallback: number) => {
    const raw = process.env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, not ${JSON.stringify(raw)}`);
    return value;
  };
  return {
    seed: num('FUZZ_SEED', defaults.seed ?? 20_260_521),
    runs: num('FUZZ_RUNS', defaults.runs ?? 1),
    batch: num('FUZZ_BATCH', defaults.batch ?? 6),
    shrinkMs: num('FUZZ_SHRINK_MS', defaults.shrinkMs ?? 8_000),
  };
}

// ---------------------------------------------------------------------------
// A minimal HTTP client (no vitest: the script uses it too)

export interface Api {
  url: string;
  key: string;
  workspaceId: string;
  /** `path` is absolute: `/api/v1/...` or `/graphql`. */
  request(method: string, path: string, options?: { body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Reply>;
  /** A REST call under /api/v1 that must succeed: its body. */
  rest(method: string, path: string, body?: unknown): Promise<any>;
  /** A GraphQL call. */
  graphql(query: string, variables?: Record<string, unknown>): Promise<Reply>;
}

export function apiClient(url: string, key: string, workspaceId: string): Api {
  const request: Api['request'] = (method, path, options = {}) => send(`${url}${path}`, method, { ...options, headers: { 'X-Api-Key': key, ...options.headers } });
  return {
    url,
    key,
    workspaceId,
    request,
    async rest(method, path, body) {
      const reply = await request(method, `/api/v1${path}`, body === undefined ? {} : { body });
      if (reply.status >= 300) throw new Error(`${method} ${path} ${JSON.stringify(body)} answered ${reply.status}: ${reply.text.slice(0, 500)}`);
      return reply.body;
    },
    graphql: (query, variables) => request('POST', '/graphql', { body: { query, variables } }),
  };
}

/** A fresh workspace with its own key, on a running server over `database`. */
export async function newApi(server: { url: string; database: Database }, name = `ws-${newId()}`): Promise<Api> {
  const created = await createKey(server.database.prisma, name, 'fuzz');
  return apiClient(server.url, created.key, created.workspaceId);
}

// ---------------------------------------------------------------------------
// Seeding: one record of every resource

export interface Seeded {
  /** The id a `{id}` route of each path prefix uses (`contacts` -> a contact id). */
  ids: Record<string, string>;
  /** The records as created (POST response bodies), by path prefix. */
  records: Record<string, any>;
  /** Every id the workspace holds (stage ids and external ids included). */
  pool: string[];
  /** The public routes' credentials, by path parameter (`publicToken`, `checkoutId`, `accountId`): what `@id` stands for in a keyless request. */
  params?: Record<string, string>;
  /** The provider account's webhook secret: signed requests to `/provider-webhooks/{accountId}` use it. */
  webhookSecret?: string;
  /** A body (or a page's form) that succeeds, by `METHOD /path`: many hostile bodies are this one with a few fields made hostile. */
  valid?: Record<string, Record<string, unknown>>;
}

/**
 * One record of every resource, linked to each other (a contact in a company, a deal
 * with contacts and products, a link with products, a transaction with an event),
 * named with `tag` so two workspaces' records differ.
 */
export async function seedWorkspace(api: Api, tag = api.workspaceId.slice(-6).toLowerCase()): Promise<Seeded> {
  const user = await api.rest('POST', '/users', { name: `User ${tag}`, email: `user-${tag}@example.com` });
  const definition = await api.rest('POST', '/property-definitions', { object: 'contact', key: 'tier', label: 'Tier', type: 'string' });
  const company = await api.rest('POST', '/companies', { name: `Company ${tag}`, domain: `c-${tag}.example.com` });
  const contact = await api.rest('POST', '/contacts', {
    first_name: `First ${tag}`,
    last_name: `Last ${tag}`,
    email: `contact-${tag}@example.com`,
    company_ids: [company.id],
    properties: { tier: 'gold' },
  });
  const product = await api.rest('POST', '/products', { name: `Product ${tag}`, sku: `SKU-${tag}`, type: 'product', price: 10, currency: 'USD', unit: 'unit' });
  const pipeline = await api.rest('POST', '/pipelines', { name: `Pipeline ${tag}`, stages: [{ name: 'New' }, { name: 'Won' }] });
  const deal = await api.rest('POST', '/deals', {
    name: `Deal ${tag}`,
    deal_stage_external_id: pipeline.stages[0].external_id,
    user_id: user.id,
    contact_ids: [contact.id],
    product_ids: [product.id],
  });
  const task = await api.rest('POST', '/tasks', { title: `Task ${tag}`, owner_ids: [user.id], assignee_ids: [user.id] });
  const ticketStatus = await api.rest('POST', '/ticket-statuses', { name: `Open ${tag}` });
  const ticket = await api.rest('POST', '/tickets', { title: `Ticket ${tag}`, ticket_status_id: ticketStatus.id });
  const note = await api.rest('POST', '/notes', { body: `Note ${tag}`, author_id: user.id, contact_ids: [contact.id], company_ids: [company.id], deal_ids: [deal.id] });
  // A task in the trash (API.md section 12): `/trash/{type}/{id}` names it as `tasks`.
  const trashed = await api.rest('POST', '/tasks', { title: `Trashed ${tag}`, owner_ids: [user.id] });
  await api.rest('DELETE', `/tasks/${trashed.id}`);
  const account = await api.rest('POST', '/payment-provider-accounts', { name: `Account ${tag}`, provider: 'test' });
  const link = await api.rest('POST', '/payment-links', { name: `Link ${tag}`, payment_provider_account_id: account.id, product_ids: [product.id] });
  const coupon = await api.rest('POST', '/payment-coupons', { code: `C${tag}`.replace(/[^A-Za-z0-9_-]/g, ''), type: 'amount', value: 1, payment_link_id: link.id });
  const transaction = await api.rest('POST', '/payment-transactions', { payment_link_id: link.id, provider_reference: `pi_${tag}`, amount: 10, currency: 'USD' });
  await api.rest('POST', `/payment-transactions/${transaction.id}/events`, {
    type: 'payment.paid',
    status: 'paid',
    provider_reference: `evt_${tag}`,
    occurred_at: '2026-01-01T00:00:00.000Z',
  });
  // Paid through the test provider: a refund succeeds at once, leaving 9 to refund.
  const refund = await api.rest('POST', `/payment-transactions/${transaction.id}/refunds`, { amount: 1 });
  // A public address: the servers under test refuse private ones, as in production. No worker runs: the delivery stays pending.
  const webhookEndpoint = await api.rest('POST', '/webhook-endpoints', { url: `https://93.184.216.34/${tag}`, events: ['contact.*'] });
  const webhookDelivery = await api.rest('POST', `/webhook-endpoints/${webhookEndpoint.id}/test`);
  const records: Record<string, any> = {
    users: user,
    'property-definitions': definition,
    companies: company,
    contacts: contact,
    products: product,
    pipelines: pipeline,
    deals: deal,
    tasks: task,
    'ticket-statuses': ticketStatus,
    tickets: ticket,
    notes: note,
    trash: { id: trashed.id, type: 'tasks' },
    'payment-provider-accounts': account,
    'payment-links': link,
    'payment-coupons': coupon,
    'payment-transactions': transaction,
    refunds: refund,
    'webhook-endpoints': webhookEndpoint,
    'webhook-deliveries': webhookDelivery,
    'webhook-endpoints/deliveries': webhookDelivery,
    // The newest event: the one its last write recorded.
    events: (await api.rest('GET', '/events?per_page=1')).data[0],
  };
  const ids: Record<string, string> = Object.fromEntries(Object.entries(records).map(([prefix, record]) => [prefix, record.id as string]));
  for (const [prefix, id] of Object.entries(ids)) if (!/^[0-9A-Z]{26}$/.test(id)) throw new Error(`seed: ${prefix} has no ULID id: ${id}`);
  const pool = [...Object.values(ids), ...pipeline.stages.flatMap((s: { id: string; external_id: string }) => [s.id, s.external_id])];
  return { ids, records, pool };
}

/**
 * What the public routes need, in a workspace of its own: a provider account of the
 * built-in `test` provider (its webhook secret kept), an active link on it (100 USD, up
 * to 6 installments), a coupon for the link, and one checkout made through the public
 * API. The credentials fill the paths' `{publicToken}`, `{checkoutId}` and `{accountId}`.
 */
export async function seedPublic(api: Api, tag = api.workspaceId.slice(-6).toLowerCase()): Promise<Seeded> {
  const account = await api.rest('POST', '/payment-provider-accounts', { name: `Test ${tag}`, provider: 'test' });
  if (typeof account.webhook_secret !== 'string') throw new Error(`seed: the provider account came without a webhook_secret: ${JSON.stringify(account)}`);
  const created = await api.rest('POST', '/payment-links', { name: `Link ${tag}`, amount: 100, currency: 'USD', max_installments: 6, payment_provider_account_id: account.id });
  const link = await api.rest('POST', `/payment-links/${created.id}/activate`);
  const coupon = await api.rest('POST', '/payment-coupons', { code: `P${tag}`.replace(/[^A-Za-z0-9_-]/g, ''), type: 'percent', value: 10, payment_link_id: created.id });
  const payer = { name: `Payer ${tag}`, email: `payer-${tag}@example.com` };
  const publicToken = created.public_token as string;
  const started = await send(`${api.url}/api/v1/public/payment-links/${encodeURIComponent(publicToken)}/checkouts`, 'POST', { body: { installments: 2, coupon_code: coupon.code, payer } });
  if (started.status !== 201) throw new Error(`seed: the public checkout answered ${started.status}: ${started.text.slice(0, 500)}`);
  const checkout = started.body;
  const checkoutId = checkout.checkout_id as string;
  const records: Record<string, any> = { 'payment-provider-accounts': account, 'payment-links': link, 'payment-coupons': coupon, checkouts: checkout };
  const ids = { 'payment-provider-accounts': account.id as string, 'payment-links': created.id as string, 'payment-coupons': coupon.id as string };
  const valid = {
    'POST /public/payment-links/{publicToken}/quote': { installments: 3, coupon_code: coupon.code.toLowerCase() },
    'POST /public/payment-links/{publicToken}/checkouts': { installments: 2, coupon_code: coupon.code, payer },
    'POST /provider-webhooks/{accountId}': {
      type: 'payment.paid',
      status: 'paid',
      provider_reference: `evt_${tag}`,
      transaction_provider_reference: `checkout_${checkoutId}`,
      occurred_at: '2026-01-01T00:00:00.000Z',
      payload: { source: 'fuzz' },
    },
    'POST /pay/{publicToken}': { installments: '2', coupon_code: coupon.code, name: payer.name, email: payer.email, action: 'pay' },
    'POST /pay/checkouts/{checkoutId}/test-provider': { decision: 'approve' },
  };
  return {
    ids,
    records,
    pool: [...Object.values(ids), publicToken, checkoutId, coupon.code, `checkout_${checkoutId}`],
    params: { publicToken, checkoutId, accountId: account.id },
    webhookSecret: account.webhook_secret,
    valid,
  };
}

/** The path prefix a route's `{id}` belongs to: `/payment-links/{id}/activate` -> `payment-links`. */
export const prefixOf = (path: string) => path.split('/')[1]!;

/** The key in `Seeded.ids` of what a list route lists: its prefix, or for a nested list the seeded ids' `<prefix>/<list>` (`webhook-endpoints/deliveries`). */
export const listedOf = (path: string) => (path.includes('{id}') ? `${prefixOf(path)}/${path.split('/').at(-1)}` : prefixOf(path));

// ---------------------------------------------------------------------------
// Snapshots: everything a workspace holds, read from the database

/** Each REST list route. */
export const listRoutes = () => restRoutes.filter((r) => r.method === 'GET' && !r.path.includes('{'));

const requiredArgs = (field: GraphQLField<unknown, unknown>) => field.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined);

/** The Query fields that list a resource (they return a page with `data`). */
export function listQueryFields(): GraphQLField<unknown, unknown>[] {
  return Object.values(schema.getQueryType()!.getFields()).filter((f) => {
    const named = getNamedType(f.type);
    return isObjectType(named) && 'data' in named.getFields() && f.args.some((a) => a.name === 'perPage') && !requiredArgs(f);
  });
}

/** The single-record Query fields (`contact(id)`, ...). */
export function recordQueryFields(): GraphQLField<unknown, unknown>[] {
  return Object.values(schema.getQueryType()!.getFields()).filter((f) => f.args.some((a) => a.name === 'id') && requiredArgs(f));
}

/** Where two JSON values first differ, for a report. */
export function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const found = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`);
      if (found) return found;
    }
  }
  return `${path}: ${abbreviate(JSON.stringify(a) ?? 'undefined', 200)} became ${abbreviate(JSON.stringify(b) ?? 'undefined', 200)}`;
}

// ---------------------------------------------------------------------------
// What the server logged (the in-process server writes error lines to stderr)

export interface LogCapture {
  /** The lines logged under a request id (the server logs errors with the request's X-Request-Id). */
  take(requestId: string): string[];
  stop(): void;
}

/** Collects what is written to stderr, by request id (and keeps fuzzed requests' lines off the console). */
export function captureServerLog(): LogCapture {
  const byRequest = new Map<string, string[]>();
  const original = process.stderr.write.bind(process.stderr);
  let pending = '';
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    pending += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const id = /"request_id":"(fuzz-[^"]+)"/.exec(line)?.[1];
      if (id) byRequest.set(id, [...(byRequest.get(id) ?? []), line]);
      else original(`${line}\n`);
    }
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof process.stderr.write;
  return {
    take(requestId) {
      const lines = byRequest.get(requestId) ?? [];
      byRequest.delete(requestId);
      return lines;
    },
    stop: () => void (process.stderr.write = original),
  };
}

// ---------------------------------------------------------------------------
// Requests

/** One hostile request, as fast-check prints it when a property fails. */
export interface FuzzRequest {
  method: string;
  /** `/api/v1/...` or `/graphql`; `@id` stands for the seeded record's id, `@ID` for it lower-cased. */
  path: string;
  /** The raw query string (without `?`), as sent. */
  query: string;
  /** `valid` (the workspace's key), `none` (no header), or a junk value sent as is. */
  key: string;
  headers: Record<string, string>;
  /** The raw body, as sent. */
  body?: string;
  /**
   * A public route's (or page's) request: the path parameter whose seeded credential `@id`
   * stands for (`publicToken`, `checkoutId`, `accountId`; see `Seeded.params`). No key is
   * sent unless `key` names a junk one.
   */
  param?: string;
  /** Signed when sent (Standard Webhooks headers over the body as sent), with the account's webhook secret or one way of getting it wrong. */
  signature?: Signature;
}

/**
 * How a provider webhook is signed when sent: `valid`, with the account's secret, now;
 * `several`, the valid signature after a junk v1 one and a v2 one; the others are
 * refused: `stale` (6 min old), `future` (6 min ahead), `other-secret`, `other-body`
 * (signed over another body), `other-id` (another webhook-id than the signed one).
 */
export type Signature = 'valid' | 'several' | 'stale' | 'future' | 'other-secret' | 'other-body' | 'other-id';

/** Long runs of one character print as `<'x' x 20000>`, so a counterexample stays readable. */
export function abbreviate(text: string, max = 400): string {
  const squeeze = (run: string, unit: string) => `<${JSON.stringify(unit)} x ${run.length / unit.length}>`;
  // Units that open a JSON value first (`{"a":` rather than `":{"a`), then any.
  const squeezed = text.replace(/([[{].{0,7}?)\1{19,}/gsu, squeeze).replace(/([^<>]{1,8}?)\1{19,}/gsu, squeeze);
  return squeezed.length > max ? `${squeezed.slice(0, max)}...(${squeezed.length} chars)` : squeezed;
}

export function describeRequest(r: FuzzRequest): string {
  const parts = [`${r.method} ${r.path}${r.query ? `?${r.query}` : ''}`];
  // A public request sends no key: only a junk one is worth showing.
  if (r.key !== 'valid' && !(r.param !== undefined && r.key === 'none')) parts.push(`X-Api-Key: ${r.key === 'none' ? '(none)' : JSON.stringify(r.key)}`);
  if (r.signature) parts.push(`webhook-*: ${r.signature === 'valid' ? "signed with the account's webhook secret" : `signed, ${r.signature}`} (at send time)`);
  for (const [name, value] of Object.entries(r.headers)) parts.push(`${name}: ${JSON.stringify(value)}`);
  const shown = (text: string) => visible(abbreviate(text, 1200));
  return [...parts.map((p) => shown(p)), ...(r.body === undefined ? [] : [`body ${r.body === '' ? '(empty)' : shown(r.body)}`])].join(' | ');
}

/** Control characters, lone surrogates and line separators as `\uXXXX`, so a printed request shows them. */
function visible(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Gives a request fast-check's printable form (the abbreviated description). */
function printable(r: FuzzRequest): FuzzRequest {
  Object.defineProperty(r, fc.toStringMethod, { value: () => describeRequest(r), enumerable: false });
  return r;
}

/** Percent-encodes any string's UTF-8 bytes (lone surrogates included), keeping unreserved characters. */
export function encode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A route's path parameter (`{id}`, or a public route's `{publicToken}`, `{checkoutId}`, `{accountId}`). */
const PARAM = /\{(\w+)\}/;

/** How a route is fuzzed. */
export interface RouteOptions {
  /** A public route: requests carry no key (now and then a junk one), and the path's parameter is the seeded credential it names (`Seeded.params`). */
  keyless?: boolean;
}

/** The body-less request for a route, `@id` standing for the seeded record (or, keyless, the seeded credential). */
function baseRequest(route: RestRoute, options: RouteOptions = {}): FuzzRequest {
  const path = `/api/v1${route.path.replace(PARAM, '@id')}`;
  if (!options.keyless) return { method: route.method, path, query: '', key: 'valid', headers: {} };
  return { method: route.method, path, query: '', key: 'none', headers: {}, param: PARAM.exec(route.path)?.[1] ?? 'none' };
}

export interface Target {
  api: Api;
  /** The database behind the server, for snapshots. */
  database: Database;
  seeded: Seeded;
  log?: LogCapture;
}

let requestCounter = 0;

export interface Sent {
  request: FuzzRequest;
  reply: Reply;
  requestId: string;
  logged: string[];
}

/** A well-formed secret that is not the account's. */
const OTHER_SECRET = `whsec_${Buffer.from('fuzz'.repeat(8)).toString('base64')}`;

/** The Standard Webhooks headers of one signed request, made when it is sent (the timestamp must be recent). */
function signatureHeaders(mode: Signature, secret: string, body: string, id: string): Record<string, string> {
  const now = Date.now();
  const at = new Date(mode === 'stale' ? now - 6 * 60_000 : mode === 'future' ? now + 6 * 60_000 : now);
  const signed = new Webhook(mode === 'other-secret' ? OTHER_SECRET : secret).sign(id, at, mode === 'other-body' ? `${body} ` : body);
  return {
    'webhook-id': mode === 'other-id' ? `${id}x` : id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': mode === 'several' ? `v1,${'A'.repeat(44)} v2,${signed.slice(3)} ${signed}` : signed,
  };
}

/** As `send`, but a redirect is the answer (the pages answer a form with 303): fetch would follow it, and report the next page's status. */
async function sendUnfollowed(url: string, method: string, body: string | undefined, headers: Record<string, string>): Promise<Reply> {
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : Buffer.from(body, 'utf8'), redirect: 'manual' });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text, text };
}

export async function sendFuzz(target: Target, r: FuzzRequest): Promise<Sent> {
  const id =
    r.param !== undefined ? (target.seeded.params?.[r.param] ?? 'none')
    : r.path.startsWith('/api/v1/') ? (target.seeded.ids[r.path.split('/')[3]!] ?? 'none')
    : 'none';
  const path = r.path.replaceAll('@id', id).replaceAll('@ID', id.toLowerCase());
  const requestId = `fuzz-${process.pid}-${++requestCounter}`;
  const headers: Record<string, string> = { ...r.headers, 'X-Request-Id': requestId };
  if (r.key === 'valid') headers['X-Api-Key'] = target.api.key;
  else if (r.key !== 'none') headers['X-Api-Key'] = r.key;
  if (r.signature) {
    if (!target.seeded.webhookSecret) throw new Error('a signed request, but the seed has no webhook secret (seedPublic)');
    Object.assign(headers, signatureHeaders(r.signature, target.seeded.webhookSecret, r.body ?? '', `msg_${requestId}`));
  }
  const url = `${target.api.url}${path}${r.query ? `?${r.query}` : ''}`;
  const reply = isPagePath(r.path) ? await sendUnfollowed(url, r.method, r.body, headers) : await send(url, r.method, { raw: r.body, headers });
  return { request: r, reply, requestId, logged: target.log?.take(requestId) ?? [] };
}

// ---------------------------------------------------------------------------
// Hostile values (as raw JSON text, so prototype keys and duplicate keys survive)

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'toJSON', '__defineGetter__', 'propertyIsEnumerable'];

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'a\udfffb',
  '\uffff',
  '\ufeff',
  '\u202e',
  '\u200b',
  '🙂',
  '🙂'.repeat(300),
  'x'.repeat(256),
  'x'.repeat(20_000),
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '-1e999',
  '0x1F',
  '1_000',
  ' 1 ',
  '1,5',
  '١٢',
  '+1',
  '.5',
  '-0',
  '9'.repeat(400),
  'true',
  'null',
  'undefined',
  '2026-02-30',
  '2026-13-01',
  '0000-00-00',
  '+275760-09-13T00:00:00.000Z',
  'not-an-email',
  "' OR 1=1 --",
  '%',
  '_',
  '\\',
  '<script>alert(1)</script>',
  '01ARZ3NDEKTSV4RRFFQ69G5FAV',
  '01arz3ndektsv4rrffq69g5fav',
  '__proto__',
  'constructor',
];

const HOSTILE_TOKENS = [
  'null',
  'true',
  'false',
  '0',
  '-1',
  '-0',
  '1e308',
  '-1e308',
  '1e400',
  '-1e400',
  '1e-400',
  '5e-324',
  '9007199254740993',
  '2147483648',
  '-2147483649',
  '0.1',
  '123456789012345678901234567890',
  '0.00001',
  '3.14159265358979323846264338327950288',
  '[]',
  '[null]',
  '["nope"]',
  '[[]]',
  '{}',
  '{"$gt":""}',
  '{"":null}',
  '""',
];

const json = (value: unknown) => JSON.stringify(value);
const objectText = (entries: ReadonlyArray<readonly [string, string]>) => `{${entries.map(([k, v]) => `${json(k)}:${v}`).join(',')}}`;

/**
 * Deeper than any recursive walk's stack (Node's default holds ~11,000 frames of a small
 * function) by far, and no deeper: JSON.parse of 150,000 levels took 20-100 ms a body.
 */
const TOO_DEEP = 50_000;

const deepNesting = fc
  .tuple(fc.constantFrom(40, 1_000, 10_000, TOO_DEEP), fc.constantFrom('array', 'object'))
  .map(([depth, kind]) => (kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));

const prototypeObject = fc
  .tuple(fc.subarray(PROTOTYPE_KEYS, { minLength: 1 }), fc.constantFrom('{"polluted":true}', '1', '"x"', 'null', '[]', '{"__proto__":{"polluted":true}}'))
  .map(([keys, value]) => objectText(keys.map((k) => [k, value] as const)));

const latin1 = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength });

/** A value of any shape that a field should refuse (or take), as JSON text. */
export const hostileValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_TOKENS) },
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS).map(json) },
  { weight: 1, arbitrary: deepNesting },
  { weight: 1, arbitrary: prototypeObject },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => json(v) ?? 'null') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map(json) },
);

// ---------------------------------------------------------------------------
// Values that fit a GraphQL input type, more or less (to get past the type checks)

const DATES = ['2026-02-28', '2024-02-29', '2026-02-29', '2026-13-01', '0000-01-01', '9999-12-31', '2026-1-1', '2026-01-01T00:00:00Z', '20260101'];
const DATETIMES = [
  '2026-01-01T00:00:00.000Z',
  '2026-01-01T00:00:00Z',
  '2026-01-01',
  '2026-01-01T25:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '-000001-01-01T00:00:00Z',
  '1970-01-01T00:00:00+14:00',
  '2026-06-01T12:00:00.123456789Z',
  '0001-01-01T00:00:00.000Z',
];
const STRINGS = ['a', 'Name', 'f@example.com', 'F@Example.COM', 'USD', 'usd', 'JPY', 'XAU', 'XYZ', 'stripe', 'product', '#fff', 'tier', 'unit', 'example.com', 'https://x.y', 'C1', 'payment.paid'];

export function fittingValue(type: GraphQLInputType, pool: string[], depth = 0): fc.Arbitrary<string> {
  if (isNonNullType(type)) return fittingValue(type.ofType, pool, depth);
  if (isListType(type)) {
    const item = fittingValue(type.ofType, pool, depth + 1);
    return fc.oneof(
      { weight: 4, arbitrary: fc.array(item, { maxLength: 3 }).map((items) => `[${items.join(',')}]`) },
      { weight: 1, arbitrary: item.map((v) => `[${v},${v}]`) },
      { weight: 1, arbitrary: fc.constantFrom(1_001, 5_000).map((n) => `[${Array.from({ length: n }, () => json(pool[0] ?? 'x')).join(',')}]`) },
    );
  }
  if (isInputObjectType(type)) return depth >= 2 ? fc.constant('{}') : hostileObject(type, pool, depth + 1);
  if (isEnumType(type)) {
    const values = type.getValues().map((v) => v.name);
    return fc.oneof(fc.constantFrom(...values), fc.constantFrom(...values).map((v) => v.toUpperCase()), fc.constantFrom(...values).map((v) => ` ${v}`)).map(json);
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'ID':
        return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: fc.constantFrom(newId(), `${pool[0]}\u0000`, (pool[0] ?? '').toLowerCase()) }, { weight: 1, arbitrary: fc.string({ maxLength: 30 }) }).map(json);
      case 'Int':
      case 'SafeInt':
        return fc
          .oneof(fc.integer({ min: -3, max: 200 }), fc.constantFrom(2_147_483_647, -2_147_483_648, 2_147_483_648, 9_007_199_254_740_991, 1_000_001, -1_000_001), fc.integer())
          .map((n) => String(n));
      case 'Float':
      case 'Decimal':
        return fc.oneof(
          fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => json(n)),
          fc.constantFrom('0', '0.0001', '0.00005', '1.23456', '99999999999', '100000000000', '99999999999.9999', '100.0001', '1e11', '-0.0001', '12.345678'),
        );
      case 'Boolean':
        return fc.constantFrom('true', 'false');
      case 'Date':
        return fc.constantFrom(...DATES).map(json);
      case 'DateTime':
        return fc.oneof(fc.constantFrom(...DATETIMES), fc.date({ noInvalidDate: true }).map((d) => d.toISOString())).map(json);
      case 'JSON':
        return fc.oneof(
          fc.jsonValue({ maxDepth: 3 }).map((v) => json(v) ?? 'null'),
          fc.tuple(fc.constantFrom('tier', 'k', 'unknown', '', '\u0000', '__proto__', 'constructor'), hostileValue).map(([k, v]) => objectText([[k, v]])),
          prototypeObject,
          deepNesting,
        );
      case 'String':
        return fc.oneof(fc.constantFrom(...STRINGS), fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 })).map(json);
      default:
        return fc.jsonValue({ maxDepth: 2 }).map((v) => json(v) ?? 'null');
    }
  }
  return hostileValue;
}

/** An object with the input type's real snake_case fields, each fitting or hostile, plus prototype and unknown keys. */
export function hostileObject(type: GraphQLInputObjectType, pool: string[], depth = 0, naming: (name: string) => string = snakeCase): fc.Arbitrary<string> {
  const fields = Object.values(type.getFields());
  const entries = fields.map((f) =>
    fc.option(
      fc.oneof({ weight: 3, arbitrary: fittingValue(f.type, pool, depth) }, { weight: 2, arbitrary: hostileValue }).map((v) => [naming(f.name), v] as const),
      { nil: undefined, freq: 3 },
    ),
  );
  const extra = fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.constantFrom(...fields.map((f) => f.name)), fc.constantFrom(...fields.map((f) => naming(f.name))), fc.string({ maxLength: 8 })),
      hostileValue,
    ),
    { maxLength: 2 },
  );
  return fc.tuple(fc.tuple(...entries), extra).map(([chosen, more]) => objectText([...chosen.filter((e) => e !== undefined), ...more]));
}

// ---------------------------------------------------------------------------
// REST requests for one route

/** The input types a route's document takes: `$input` (the body), `$inputs` (a batch's items, the body's `inputs`) and `$filter` (the query string). */
export function routeInputs(route: RestRoute): { body?: GraphQLInputObjectType; items?: GraphQLInputObjectType; filter?: GraphQLInputObjectType; paged: boolean } {
  const { operation } = compileDocument(schema, route.document, `${route.method} ${route.path}`);
  const typeOf = (name: string) => {
    const def = operation.variableDefinitions?.find((v) => v.variable.name.value === name);
    const type = def && (typeFromAST(schema, def.type as never) as GraphQLInputType | undefined);
    const named = type && getNamedType(type);
    return named && isInputObjectType(named) ? named : undefined;
  };
  return { body: typeOf('input'), items: typeOf('inputs'), filter: typeOf('filter'), paged: !!operation.variableDefinitions?.some((v) => v.variable.name.value === 'page') };
}

const PATH_IDS = [
  '%00',
  'a%00b',
  '@id%00',
  '%00@id',
  '@id%20',
  '@ID',
  '@id.json',
  '..',
  '.',
  '%2e%2e',
  '%2E',
  '%2F',
  '@id%2F..',
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AE',
  '%FF',
  '%ED%A0%80',
  '%EF%BF%BF',
  '%F0%9F%99%82',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'upsert',
  'null',
  'undefined',
  '0',
  '-1',
  '1e308',
  'NaN',
  '%20',
  '%09',
  '%0A',
  '0'.repeat(26),
  'Z'.repeat(26),
  'x'.repeat(3_000),
  "'%20OR%201=1--",
];

const pathIds = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PATH_IDS) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encode) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(encode) },
  { weight: 1, arbitrary: fc.ulid() },
);

const QUERY_VALUES = [
  '',
  '0',
  '-1',
  '1',
  '2',
  '100',
  '101',
  '1.5',
  '1e2',
  '1e309',
  'NaN',
  'Infinity',
  '-0',
  '0x10',
  '99999999999999999999',
  '%201',
  '1%20',
  'true',
  'false',
  'TRUE',
  'null',
  'undefined',
  '[]',
  '{}',
  '%00',
  'a%00b',
  '%',
  '%zz',
  '%ED%A0%80',
  '%25',
  '_',
  '%5C',
  "'%20OR%201=1--",
  encode('🙂'),
  encode('\u202e'),
  'x'.repeat(5_000),
  'x'.repeat(20_000),
];

const RAW_QUERIES = [
  'constructor=1',
  '__proto__=1',
  '__proto__[x]=1',
  'toString=1',
  'hasOwnProperty=1',
  'valueOf=1',
  'page=1&page=2',
  'per_page=1&per_page=abc',
  'page[]=1',
  'per_page[max]=5',
  '%00=%00',
  'a=%zz',
  '&&&',
  '=',
  '==',
  '?',
  'page',
  'per_page=',
  '%70age=2',
  'PAGE=1',
  'filter[email]=x',
  'search=%00',
];

/** Query strings: the route's real filters and paging keys, prototype keys and junk, repeated, with junk values. */
export function queryStrings(route: RestRoute, seeded: Seeded): fc.Arbitrary<string> {
  const { filter } = routeInputs(route);
  const filterKeys = filter ? Object.keys(filter.getFields()).map(snakeCase) : [];
  const known = Object.values(seeded.records).flatMap((r) => [r.name, r.email, r.title, r.provider_reference].filter((v): v is string => typeof v === 'string'));
  const key = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('page', 'per_page', ...filterKeys) },
    { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS).map(encode) },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map(encode) },
    { weight: 1, arbitrary: fc.constantFrom('filter', 'a.b', '', '%00', 'search%00', 'email[$ne]') },
  );
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...QUERY_VALUES) },
    { weight: 1, arbitrary: fc.constantFrom(...seeded.pool, ...known).map(encode) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map(encode) },
  );
  return fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 5 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_QUERIES) },
  );
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=latin1',
  'application/merge-patch+json',
  'application/vnd.api+json',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  'json',
  '*/*',
  'application/json, text/plain',
  'application/json; boundary="',
  'application/graphql',
  'application/graphql-response+json',
];

const IDEMPOTENCY_KEYS = ['', ' ', 'a', 'x'.repeat(255), 'x'.repeat(256), 'x'.repeat(8_000), 'ü', 'key with spaces', '%00', '__proto__', 'constructor', '\u00ff\u00fe'];

/** Junk `X-Api-Key` values; `@key` is the workspace's key. */
const API_KEYS = ['none', '', 'sg_', `sg_${'A'.repeat(40)}`, `sg_${'A'.repeat(129)}`, '@keyx', '@KEY', '@key ', 'Bearer @key', '@key,@key', '__proto__', 'x'.repeat(8_000)];

const contentType = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) }, { weight: 1, arbitrary: latin1(30) });
const idempotencyKey = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...IDEMPOTENCY_KEYS) }, { weight: 2, arbitrary: latin1(40) });
const junkKey = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...API_KEYS) }, { weight: 1, arbitrary: latin1(50) });

const RAW_BODIES = [
  '',
  ' ',
  'null',
  '[]',
  '"x"',
  '1',
  '{',
  '{"a":',
  '{"a":1}}',
  'not json',
  '\u0000',
  '{}\u0000',
  '\ufeff{}',
  '{"a":1,"a":2}',
  "{'a':1}",
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":1,}',
  '[1,2',
  '\ud800',
  `{"x":"${'y'.repeat(1_100_000)}"}`,
];

type Entry = readonly [string, string];

/**
 * A body that succeeds with each field kept (mostly), left out, or made hostile (nested
 * objects likewise), and now and then a prototype, repeated or unknown key: hostile
 * values that get past the other fields' checks.
 */
export function mutatedObject(valid: Record<string, unknown>, depth = 0): fc.Arbitrary<string> {
  const entries = Object.entries(valid).map(([key, value]) =>
    fc.oneof(
      { weight: 8, arbitrary: fc.constant<Entry | undefined>([key, json(value)]) },
      { weight: 1, arbitrary: fc.constant<Entry | undefined>(undefined) },
      { weight: 2, arbitrary: hostileValue.map((v): Entry | undefined => [key, v]) },
      ...(isPlainObject(value) && depth < 2 ? [{ weight: 2, arbitrary: mutatedObject(value, depth + 1).map((v): Entry | undefined => [key, v]) }] : []),
    ),
  );
  const extra = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.constantFrom(...Object.keys(valid)), fc.string({ maxLength: 8 })), hostileValue), { maxLength: 1 });
  return fc.tuple(fc.tuple(...entries), extra).map(([chosen, more]) => objectText([...chosen.filter((e) => e !== undefined), ...more]));
}

/** The seed's body that succeeds on this route, if it has one (the public routes'). */
const validBody = (route: RestRoute, seeded: Seeded) => seeded.valid?.[`${route.method} ${route.path}`];

/** Any body: an object with the route's fields (or, for routes without a body, anything). */
export function bodies(route: RestRoute, seeded: Seeded): fc.Arbitrary<string> {
  const { body, items } = routeInputs(route);
  const valid = validBody(route, seeded);
  const shaped = [
    ...(body ? [{ weight: 6, arbitrary: hostileObject(body, seeded.pool) }] : []),
    ...(valid ? [{ weight: 6, arbitrary: mutatedObject(valid) }] : []),
    // A batch: a few items with the item type's fields, fitting or hostile, now and then a hostile item.
    ...(items
      ? [{ weight: 6, arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: hostileObject(items, seeded.pool) }, { weight: 1, arbitrary: hostileValue }), { maxLength: 4 }).map((list) => `{"inputs":[${list.join(',')}]}`) }]
      : []),
  ];
  return fc.oneof(
    ...shaped,
    { weight: 2, arbitrary: fc.jsonValue().map((v) => json(v) ?? 'null') },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES) },
    { weight: 1, arbitrary: prototypeObject },
    { weight: 1, arbitrary: deepNesting },
    { weight: 1, arbitrary: hostileValue },
  );
}

/**
 * The kinds of hostility, each its own property so one kind's failure does not hide
 * another's. `signed`: a provider webhook signed at send time (mostly correctly), with a
 * hostile body (now and then a hostile path, content type or signature headers), so
 * the body is fuzzed past the signature check.
 */
export type Aspect = 'path' | 'query' | 'body' | 'headers' | 'mixed' | 'signed';

/** A route whose credential is a webhook signature by the account in its path (the public gate's rule). */
const isSignedRoute = (route: RestRoute) => route.path.includes('{accountId}');

export function aspectsOf(route: RestRoute, options: RouteOptions = {}): Aspect[] {
  return [
    ...(PARAM.test(route.path) ? (['path'] as const) : []),
    'query',
    ...(route.method !== 'GET' ? (['body'] as const) : []),
    'headers',
    'mixed',
    ...(options.keyless && isSignedRoute(route) ? (['signed'] as const) : []),
  ];
}

interface HeaderChoice {
  contentType?: string;
  idempotencyKey?: string;
  key?: string;
  extra?: readonly [string, string];
}

const headerChoices: fc.Arbitrary<HeaderChoice> = fc.record(
  {
    contentType: contentType,
    idempotencyKey: idempotencyKey,
    key: junkKey,
    extra: fc.constantFrom(['X-HTTP-Method-Override', 'DELETE'] as const, ['Content-Encoding', 'gzip'] as const, ['Accept', 'text/html'] as const, ['X-Forwarded-For', '127.0.0.1'] as const),
  },
  { requiredKeys: [] },
);

/** `apiKey` undefined (a keyless request): a junk key is sent as written, never made of the workspace's. */
function applyHeaders(r: FuzzRequest, choice: HeaderChoice, apiKey: string | undefined): FuzzRequest {
  const headers = { ...r.headers };
  if (choice.contentType !== undefined) headers['Content-Type'] = choice.contentType;
  if (choice.idempotencyKey !== undefined) headers['Idempotency-Key'] = choice.idempotencyKey;
  if (choice.extra) headers[choice.extra[0]] = choice.extra[1];
  const key = choice.key === undefined || apiKey === undefined ? (choice.key ?? r.key) : choice.key.replaceAll('@KEY', apiKey.toUpperCase()).replaceAll('@key', apiKey);
  return { ...r, headers, key };
}

/** The key as a request shows it: `valid` for the workspace's own, so counterexamples do not print it. */
const keyLabel = (key: string, apiKey: string) => (key === apiKey ? 'valid' : key.replaceAll(apiKey, '<key>'));

/** Signature modes: mostly valid, so the body gets past the check. */
const signatureModes = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Signature>('valid') },
  { weight: 1, arbitrary: fc.constant<Signature>('several') },
  { weight: 2, arbitrary: fc.constantFrom<Signature>('stale', 'future', 'other-secret', 'other-body', 'other-id') },
);

/** Junk Standard Webhooks headers, as sent (no signature made). */
const junkWebhookHeaders: fc.Arbitrary<Record<string, string>> = fc.record({
  'webhook-id': fc.oneof(fc.constantFrom('', ' ', 'msg_1', 'x'.repeat(5_000), '__proto__'), latin1(20)),
  'webhook-timestamp': fc.oneof(fc.constantFrom('', '0', '-1', 'NaN', '1e10', '99999999999999999999', ' 1', '0x10', '9007199254740993', '-9007199254740993'), latin1(12)),
  'webhook-signature': fc.oneof(fc.constantFrom('', 'v1', 'v1,', ',', 'v1,v1,', `v1,${'A'.repeat(44)}`, `v1,${'='.repeat(44)}`, 'v1,@@@ v1,%%%', `${'v1,a '.repeat(2_000)}`), latin1(60)),
});

/** Hostile requests for one route, varying one aspect (or all of them, for `mixed`). */
export function restRequests(route: RestRoute, aspect: Aspect, target: Target, options: RouteOptions = {}): fc.Arbitrary<FuzzRequest> {
  const base = baseRequest(route, options);
  const withBody = route.method !== 'GET';
  const benign: FuzzRequest = withBody ? { ...base, headers: { 'Content-Type': 'application/json' }, body: '{}' } : base;
  const apiKey = options.keyless ? undefined : target.api.key;
  const finish = (r: FuzzRequest) => printable(apiKey === undefined ? r : { ...r, key: keyLabel(r.key, apiKey) });
  const idPath = (id: string) => `/api/v1${route.path.replace(PARAM, id)}`;
  switch (aspect) {
    case 'path':
      return pathIds.map((id) => finish({ ...benign, path: idPath(id) }));
    case 'query':
      return queryStrings(route, target.seeded).map((query) => finish({ ...benign, query }));
    case 'body':
      return bodies(route, target.seeded).map((body) => finish({ ...base, headers: { 'Content-Type': 'application/json' }, body }));
    case 'headers':
      return fc
        .tuple(headerChoices, withBody ? fc.oneof(fc.constant('{}'), bodies(route, target.seeded)) : fc.constant(undefined))
        .map(([choice, body]) => finish(applyHeaders({ ...base, ...(body === undefined ? {} : { body }) }, choice, apiKey)));
    case 'mixed':
      return fc
        .tuple(
          fc.option(pathIds, { nil: undefined }),
          fc.option(queryStrings(route, target.seeded), { nil: undefined }),
          withBody ? fc.option(bodies(route, target.seeded), { nil: undefined }) : fc.constant(undefined),
          headerChoices,
        )
        .map(([id, query, body, choice]) =>
          finish(applyHeaders({ ...base, path: id === undefined ? base.path : idPath(id), query: query ?? '', ...(body === undefined ? {} : { body, headers: { 'Content-Type': 'application/json' } }) }, choice, apiKey)),
        );
    case 'signed':
      return fc
        .tuple(
          fc.oneof({ weight: 6, arbitrary: signatureModes }, { weight: 1, arbitrary: junkWebhookHeaders }),
          bodies(route, target.seeded),
          fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: contentType }),
          // Mostly the account's own path and no query string (fc.option's `freq` is the odds of the nil value, 1 in freq).
          fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: pathIds }),
          fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: queryStrings(route, target.seeded) }),
        )
        .map(([signing, body, type, id, query]) =>
          finish({
            ...base,
            path: id === undefined ? base.path : idPath(id),
            query: query ?? '',
            body,
            ...(typeof signing === 'string' ? { headers: { 'Content-Type': type }, signature: signing } : { headers: { 'Content-Type': type, ...signing } }),
          }),
        );
  }
}

/** Values of the wrong type or shape for a field, each sent in every field at once (and one field at a time to an update). */
const TYPE_CONFUSION = [null, 12345, -1, 1e308, true, 'x'.repeat(20_000), '', '2026-02-30', 'not-an-email', [], [null], ['nope'], {}, { $gt: '' }].map(json);

/**
 * Hostile bodies every run tries: NUL, 1e400, prototype objects and each wrong type in
 * every field; a body that is not an object; prototype keys; deep nesting. An update also
 * gets one field at a time, each field a fifth of the wrong types in turn (every type
 * reaches a fifth of the fields; the random bodies try the others): a value that passes
 * its own field's rule but breaks the database cannot hide behind another field's refusal.
 */
function bodyExamples(route: RestRoute): string[] {
  const { body: single, items } = routeInputs(route);
  const body = single ?? items;
  const fields = body ? Object.keys(body.getFields()).map(snakeCase) : ['x'];
  const everyField = (value: string) => objectText(fields.map((f) => [f, value] as const));
  // A batch's examples are its one item's.
  const wrap = (examples: string[]) => (items ? examples.map((e) => `{"inputs":[${e}]}`) : examples);
  return [
    ...wrap([
      everyField(json('a\u0000b')),
      everyField('1e400'),
      everyField('{"__proto__":{"polluted":true}}'),
      ...TYPE_CONFUSION.map(everyField),
      ...(route.method === 'PUT' ? fields.flatMap((f, i) => TYPE_CONFUSION.filter((_, j) => (i + j) % 5 === 0).map((value) => objectText([[f, value]]))) : []),
      objectText(PROTOTYPE_KEYS.map((k) => [k, '{"polluted":true}'] as const)),
      `${'['.repeat(TOO_DEEP)}${']'.repeat(TOO_DEEP)}`,
      // Nesting each JSON field (properties, metadata, payload) alone, so a failure names the field.
      ...(body ? Object.values(body.getFields()).filter((f) => getNamedType(f.type).name === 'JSON') : []).map((f) =>
        objectText([[snakeCase(f.name), `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`]]),
      ),
    ]),
    // Not an object at all (nor, for a batch, an object holding one): one of each JSON type.
    ...['null', '12345', 'true', '""', '[null]'],
  ];
}

/** Requests every run tries first: the hostile cases named in the brief, one batch per aspect. */
export function restExamples(route: RestRoute, aspect: Aspect, options: RouteOptions = {}, seeded?: Seeded): FuzzRequest[] {
  const base = baseRequest(route, options);
  const benign: FuzzRequest = route.method !== 'GET' ? { ...base, headers: { 'Content-Type': 'application/json' }, body: '{}' } : base;
  const idPath = (id: string) => `/api/v1${route.path.replace(PARAM, id)}`;
  const list = (): FuzzRequest[] => {
    switch (aspect) {
      case 'path':
        return ['%00', '@id%00', '..', '%2e%2e', encode('🙂'), '%ED%A0%80', '__proto__', 'constructor'].map((id) => ({ ...benign, path: idPath(id) }));
      case 'query':
        // A write reads no list parameters: its query string only has to be parsed safely.
        return (
          route.method === 'GET'
            ? [...PROTOTYPE_KEYS.slice(0, 6).map((k) => `${k}=1`), 'page=abc&per_page=-1', 'page=1&page=2', 'per_page=%00', `page=${'9'.repeat(30)}`, 'search=a%00b&email=a%00b']
            : ['__proto__=1&constructor=1', 'page=1&page=2', 'search=a%00b']
        ).map((query) => ({ ...benign, query }));
      case 'body':
        return bodyExamples(route).map((text) => ({ ...base, headers: { 'Content-Type': 'application/json' }, body: text }));
      case 'headers':
        return [
          { ...benign, headers: { 'Content-Type': 'text/plain' } },
          { ...benign, headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'x'.repeat(256) } },
          { ...benign, headers: { 'Content-Type': 'application/json', 'Idempotency-Key': '__proto__' } },
          { ...benign, key: 'none' },
          { ...benign, key: `sg_${'A'.repeat(40)}` },
        ];
      case 'mixed':
        return [{ ...benign, path: PARAM.test(route.path) ? idPath('%00') : base.path, query: 'constructor=1&__proto__=1' }];
      case 'signed': {
        // Signed with the account's secret: the body that succeeds, then the hostile ones, the empty one, and a refused signature or two.
        const valid = seeded && validBody(route, seeded);
        const signed = (body: string, signature: Signature = 'valid'): FuzzRequest => ({ ...base, headers: { 'Content-Type': 'application/json' }, body, signature });
        return [
          ...(valid ? [signed(json(valid)), signed(json(valid), 'several'), signed(json(valid), 'stale')] : []),
          ...bodyExamples(route).map((body) => signed(body)),
          ...(valid ? Object.keys(valid).map((field) => signed(objectText(Object.entries(valid).map(([k, v]) => [k, k === field ? json('a\u0000b') : json(v)] as const)))) : []),
          signed(''),
          signed('{}'),
          signed('null'),
          { ...signed('{}'), path: idPath('%00') },
          { ...signed('{}'), path: idPath(encode('🙂')) },
        ];
      }
    }
  };
  return list().map(printable);
}

// ---------------------------------------------------------------------------
// GraphQL requests

/** A leaf selection for a related object: its id, else its leaf fields. */
export function leafSelection(type: GraphQLObjectType): string {
  const fields = Object.values(type.getFields());
  if (fields.some((f) => f.name === 'id')) return 'id';
  const leaves = fields.filter((f) => f.args.length === 0 && isLeafType(getNamedType(f.type))).map((f) => f.name);
  return leaves.length ? leaves.join(' ') : '__typename';
}

/** What a fuzzed document selects of a root field's result: a little of everything. */
function selectionOf(type: GraphQLNamedType): string {
  if (!isObjectType(type)) return '';
  const fields = Object.values(type.getFields());
  const data = type.getFields().data;
  const item = data && getNamedType(data.type);
  if (item && isObjectType(item)) return `{ total data { ${leafSelection(item)} } }`;
  const leaves = fields.filter((f) => !requiredArgs(f) && isLeafType(getNamedType(f.type))).map((f) => f.name);
  const objects = fields.filter((f) => !requiredArgs(f) && isObjectType(getNamedType(f.type))).map((f) => `${f.name} { __typename }`);
  return `{ __typename ${[...leaves, ...objects].join(' ')} }`;
}

function printType(type: GraphQLInputType): string {
  return String(type);
}

const SIMPLE_QUERY = '{ contacts(perPage: 1) { total } }';

/** Hand-made hostile /graphql bodies. */
const GRAPHQL_JUNK = [
  objectText([['__proto__', objectText([['query', json(SIMPLE_QUERY)]])]]),
  objectText([['query', json('{ __proto__ }')]]),
  objectText([['query', json('{ constructor }')]]),
  objectText([['query', json('{ contact(id: "\\u0000") { id } }')]]),
  objectText([['query', json('query ($id: ID!) { contact(id: $id) { id } }')], ['variables', '{"id":"a\\u0000b"}']]),
  objectText([['query', json('query ($id: ID!) { contact(id: $id) { id } }')], ['variables', '{"__proto__":{"id":"x"}}']]),
  objectText([['query', json('query ($id: ID!) { contact(id: $id) { id } }')], ['variables', '{"constructor":{"id":"x"}}']]),
  objectText([['query', json('query ($p: Int) { contacts(page: $p) { total } }')], ['variables', '{"p":"1"}']]),
  objectText([['query', json('query ($f: ContactFilter) { contacts(filter: $f) { total } }')], ['variables', '{"f":{"constructor":"x","__proto__":{"email":"x"}}}']]),
  objectText([['query', json(SIMPLE_QUERY)], ['extensions', '{"persistedQuery":{"version":1,"sha256Hash":"x"}}']]),
  objectText([['query', json('mutation ($p: JSON) { createContact(input: { firstName: "F", email: "deep@example.com", properties: $p }) { id } }')], ['variables', `{"p":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`]]),
  objectText([['query', json(`{ ${'contacts { total } '.repeat(2_000)} }`)]]),
  objectText([['query', json(`{ ${'{'.repeat(5_000)} }`)]]),
  objectText([['query', json(`{ contacts ${'{ data '.repeat(50)}${'}'.repeat(50)} }`)]]),
  objectText([['query', json('mutation { deleteContact(id: "x") }')], ['operationName', '"__proto__"']]),
  `[${Array.from({ length: 12 }, () => objectText([['query', json(SIMPLE_QUERY)]])).join(',')}]`,
  `[${objectText([['query', json(SIMPLE_QUERY)]])},${objectText([['query', json('mutation { deleteUser(id: "nope") }')]])}]`,
  '[]',
  '{',
  '',
  'query { contacts { total } }',
];

export function graphqlExamples(): FuzzRequest[] {
  const request = (body: string, headers: Record<string, string>): FuzzRequest => printable({ method: 'POST', path: '/graphql', query: '', key: 'valid', headers, body });
  return [
    ...GRAPHQL_JUNK.map((body) => request(body, { 'Content-Type': 'application/json' })),
    request(objectText([['query', json(SIMPLE_QUERY)]]), { 'Content-Type': 'text/plain' }),
    request(objectText([['query', json(SIMPLE_QUERY)]]), {}),
  ];
}

/** Hostile GraphQL requests: schema-derived documents with hostile variables, raw junk bodies, batches, prototype keys. */
export function graphqlRequests(target: Target): fc.Arbitrary<FuzzRequest> {
  const pool = target.seeded.pool;
  const roots = [
    ...Object.values(schema.getQueryType()!.getFields()).map((f) => ['query', f] as const),
    ...Object.values(schema.getMutationType()!.getFields()).map((f) => ['mutation', f] as const),
  ];
  const documentRequest = fc.constantFrom(...roots).chain(([operation, field]) => {
    const defs = field.args.map((a) => `$${a.name}: ${printType(a.type)}`).join(', ');
    const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
    const query = `${operation} Fuzz${defs ? `(${defs})` : ''} { ${field.name}${args ? `(${args})` : ''} ${selectionOf(getNamedType(field.type))} }`;
    type Entry = readonly [string, string];
    const chosenArgs: fc.Arbitrary<Entry | undefined>[] = field.args.map((a) =>
        fc.option(
          fc
            .oneof(
              { weight: 3, arbitrary: isInputObjectType(getNamedType(a.type)) ? hostileObject(getNamedType(a.type) as GraphQLInputObjectType, pool, 0, (n) => n) : fittingValue(a.type, pool) },
              { weight: 2, arbitrary: hostileValue },
            )
            .map((v) => [a.name, v] as const),
          { nil: undefined, freq: 6 },
        ),
    );
    const variables = fc.tuple(fc.tuple(...chosenArgs), fc.array(fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS), hostileValue), { maxLength: 1 }));
    return variables.map(([chosen, extra]: [(Entry | undefined)[], Entry[]]) => objectText([['query', json(query)], ['variables', objectText([...chosen.filter((e) => e !== undefined), ...extra])]]));
  });
  const junk = fc.oneof(
    fc.jsonValue().map((v) => json(v) ?? 'null'),
    fc.string({ maxLength: 60 }).map((q) => objectText([['query', json(q)]])),
    fc.tuple(hostileValue, hostileValue).map(([variables, name]) => objectText([['query', json(SIMPLE_QUERY)], ['variables', variables], ['operationName', name]])),
    fc.constantFrom(...GRAPHQL_JUNK),
    fc.array(documentRequest, { minLength: 2, maxLength: 3 }).map((items) => `[${items.join(',')}]`),
  );
  return fc
    .tuple(
      fc.oneof({ weight: 5, arbitrary: documentRequest }, { weight: 2, arbitrary: junk }),
      fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: contentType }),
      // Mostly the workspace's own key (undefined), so most documents run; now and then a junk one.
      fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: junkKey }),
    )
    .map(([body, type, key]) =>
      printable({ method: 'POST', path: '/graphql', query: '', key: key === undefined ? 'valid' : keyLabel(key.replaceAll('@key', target.api.key), target.api.key), headers: { 'Content-Type': type }, body }),
    );
}

// ---------------------------------------------------------------------------
// The payer's pages (/pay/...): server-rendered HTML, outside the route table

/** The pages of src/modules/checkouts/pages.ts; `{publicToken}` and `{checkoutId}` are the seeded credentials (`seedPublic`). */
export const PAGES = [
  { method: 'GET', path: '/pay/{publicToken}' },
  { method: 'POST', path: '/pay/{publicToken}' },
  { method: 'GET', path: '/pay/checkouts/{checkoutId}' },
  { method: 'GET', path: '/pay/checkouts/{checkoutId}/test-provider' },
  { method: 'POST', path: '/pay/checkouts/{checkoutId}/test-provider' },
] as const;

type Page = (typeof PAGES)[number];

const isPagePath = (path: string) => path.startsWith('/pay/');

/** What the pages' forms post (the link page's, the test provider's). */
const FORM_FIELDS = ['installments', 'coupon_code', 'name', 'email', 'action', 'decision'];
const FORM_WORDS = ['1', '2', '6', '7', '48', 'quote', 'pay', 'approve', 'decline', 'APPROVE', 'Pay', 'ada@example.com', 'Ada+Lovelace', '+', '%2B', '%20pay', 'pay%00'];
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** A form field's value, percent-encoded as a browser sends it (or not quite). */
const formValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...QUERY_VALUES, ...FORM_WORDS) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_STRINGS).map(encode) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map(encode) },
);

const formPair = fc
  .tuple(
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FORM_FIELDS) }, { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map(encode) }),
    formValue,
  )
  .map(([k, v]) => `${k}=${v}`);

const RAW_FORMS = ['&&&', '=', '==', '%', 'a=%zz', 'installments=%ED%A0%80&action=quote', 'action=pay&action=quote', 'installments=1&installments=99', 'decision=approve&decision=decline', '__proto__[action]=pay'];

/** Form bodies: the seed's form that succeeds with a few fields dropped or made hostile, any fields, junk. */
function formBodies(valid: Record<string, unknown> | undefined): fc.Arbitrary<string> {
  const any = fc.array(formPair, { minLength: 1, maxLength: 6 }).map((pairs) => pairs.join('&'));
  const mutated = valid
    ? [
        {
          weight: 5,
          arbitrary: fc
            .tuple(
              fc.tuple(
                ...Object.entries(valid).map(([k, v]) =>
                  fc.oneof(
                    { weight: 8, arbitrary: fc.constant<string | undefined>(`${k}=${encode(String(v))}`) },
                    { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
                    { weight: 2, arbitrary: formValue.map((x): string | undefined => `${k}=${x}`) },
                  ),
                ),
              ),
              fc.array(formPair, { maxLength: 2 }),
            )
            .map(([kept, more]) => [...kept.filter((p) => p !== undefined), ...more].join('&')),
        },
      ]
    : [];
  return fc.oneof(
    ...mutated,
    { weight: 2, arbitrary: any },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_FORMS, ...RAW_BODIES) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => json(v) ?? 'null') },
  );
}

const pageQueries = fc.oneof(
  fc.array(fc.tuple(fc.oneof(fc.constantFrom(...FORM_FIELDS), fc.constantFrom(...PROTOTYPE_KEYS)), fc.constantFrom(...QUERY_VALUES)), { minLength: 1, maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
  fc.constantFrom(...RAW_QUERIES),
);

const bodyAllowed = (method: string) => method !== 'GET' && method !== 'HEAD';

function pageRequest(page: Page, id: string | undefined, method: string, query: string, body: string | undefined, headers: Record<string, string>): FuzzRequest {
  const request: FuzzRequest = { method, path: page.path.replace(PARAM, id ?? '@id'), query, key: 'none', headers, param: PARAM.exec(page.path)![1]! };
  return bodyAllowed(method) && body !== undefined ? { ...request, body } : request;
}

/** Hostile requests to the pages: the seeded credential or a hostile one in the path, hostile forms, methods, query strings and headers. */
export function pageRequests(target: Target): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...PAGES).chain((page) => {
    const valid = target.seeded.valid?.[`${page.method} ${page.path}`];
    return fc
      .tuple(
        fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: pathIds }),
        fc.oneof({ weight: 8, arbitrary: fc.constant<string>(page.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS') }),
        fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: pageQueries }),
        page.method === 'POST' ? formBodies(valid) : fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: formBodies(undefined) }),
        fc.oneof({ weight: 6, arbitrary: fc.constant(FORM_TYPE) }, { weight: 1, arbitrary: contentType }, { weight: 1, arbitrary: fc.constant(undefined) }),
        fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: headerChoices }),
      )
      .map(([id, method, query, body, type, choice]) => {
        const request = pageRequest(page, id, method, query, body, body !== undefined && type !== undefined ? { 'Content-Type': type } : {});
        return printable(choice ? applyHeaders(request, choice, undefined) : request);
      });
  });
}

/** Requests every run of the pages tries first: hostile forms and credentials; a checkout paid, then approved. */
export function pageExamples(): FuzzRequest[] {
  const [show, post, result, provider, decide] = PAGES;
  const form = (page: Page, body: string, id?: string) => pageRequest(page, id, page.method, '', body, { 'Content-Type': FORM_TYPE });
  const quote = (fields: string) => form(post, `${fields}&action=quote`);
  return [
    ...PAGES.filter((p) => p.method === 'GET').flatMap((p) => [pageRequest(p, undefined, 'GET', '', undefined, {}), ...['%00', '@id%00', encode('🙂'), '__proto__', 'x'.repeat(3_000)].map((id) => pageRequest(p, id, 'GET', '', undefined, {}))]),
    pageRequest(show, undefined, 'HEAD', '', undefined, {}),
    pageRequest(show, undefined, 'PUT', '', 'x=1', { 'Content-Type': FORM_TYPE }),
    ...['abc', '1.5', '1e999', '99999999999', '-1', '0', '7', '', '%00', '2%00'].map((n) => quote(`installments=${n}`)),
    quote(`coupon_code=a%00b`),
    quote(`coupon_code=${'x'.repeat(65)}`),
    quote(`coupon_code=${encode('🙂'.repeat(300))}`),
    form(post, 'action=pay&name=%00&email=a%00b@example.com'),
    form(post, 'action=pay&name=&email='),
    form(post, `action=pay&installments=2&name=${'x'.repeat(20_000)}&email=ada@example.com`),
    form(post, '__proto__=x&constructor=y&toString=z&hasOwnProperty=w&action=quote'),
    form(post, `x=${'y'.repeat(1_100_000)}&action=quote`),
    { ...form(post, 'action=quote'), headers: { 'Content-Type': 'application/json' } },
    form(post, 'installments=2&coupon_code=nope&name=Ada+Lovelace&email=ada@example.com&action=pay'),
    form(post, 'installments=2&name=Ada+Lovelace&email=ada@example.com&action=pay'),
    form(decide, 'decision=maybe'),
    form(decide, 'decision=approve', '%00'),
    form(decide, ''),
    pageRequest(provider, undefined, 'GET', '', undefined, {}),
    pageRequest(result, undefined, 'GET', 'constructor=1&__proto__=1', undefined, {}),
    form(decide, 'decision=approve'),
    form(decide, 'decision=decline'),
  ].map(printable);
}

/** The payer's pages, as one property: never a 5xx, text/html but for redirects, and a refused request changes nothing. */
export async function fuzzPages(target: Target, settings: FuzzSettings): Promise<string[]> {
  return checkProperty('/pay pages', pageRequests(target), pageExamples(), target, settings);
}

// ---------------------------------------------------------------------------
// The properties

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A broken rule: `kind` tells distinct defects apart (a route may have several), `text` reports it. */
export interface Violation {
  kind: string;
  text: string;
}

/** What the server logged, reduced to the error's name and message: distinct causes of a 500 stay distinct. */
function loggedCause(sent: Sent): string {
  const causes = sent.logged.map((line) => {
    try {
      const parsed = JSON.parse(line) as { error?: string; code?: string; message?: string };
      return [parsed.error, parsed.code, parsed.message?.slice(0, 60)].filter(Boolean).join(' ');
    } catch {
      return line.slice(0, 60);
    }
  });
  return causes.join('; ') || 'nothing logged';
}

/** What a reply breaks of the contract, if anything. */
export function violations(sent: Sent): Violation[] {
  const { request, reply } = sent;
  const out: Violation[] = [];
  if (reply.status >= 500) out.push({ kind: `${reply.status} (${loggedCause(sent)})`, text: `answered ${reply.status}: ${abbreviate(reply.text, 200)}` });
  if (request.path === '/graphql') {
    const results = Array.isArray(reply.body) ? reply.body : [reply.body];
    if (!results.every(isPlainObject)) out.push({ kind: `graphql ${reply.status}: a body that is not a JSON object`, text: `answered ${reply.status} with a body that is not a JSON object: ${abbreviate(reply.text, 300)}` });
    for (const result of results.filter(isPlainObject)) {
      const errors = result.errors;
      if (errors === undefined) continue;
      if (!Array.isArray(errors)) {
        out.push({ kind: 'graphql errors not an array', text: `"errors" is not an array: ${abbreviate(reply.text, 300)}` });
        continue;
      }
      for (const e of errors) {
        const shown = abbreviate(JSON.stringify(e), 300);
        if (!isPlainObject(e) || typeof e.message !== 'string') out.push({ kind: 'graphql error without message', text: `answered ${reply.status} with an error without a string message: ${shown}` });
        else if (!isPlainObject(e.extensions) || typeof e.extensions.code !== 'string')
          out.push({ kind: 'graphql: an error without extensions.code', text: `answered ${reply.status} with an error without extensions.code: ${shown}` });
        else if (e.extensions.code === 'INTERNAL_SERVER_ERROR') out.push({ kind: `graphql INTERNAL_SERVER_ERROR (${loggedCause(sent)})`, text: `answered ${reply.status} with INTERNAL_SERVER_ERROR: ${shown}` });
      }
    }
  } else if (isPagePath(request.path)) {
    // The client resolves dot segments first (`/pay/..` is `/`): only a path still under /pay/ reaches the pages.
    const reached = new URL(request.path, 'http://fuzz.invalid').pathname.startsWith('/pay/');
    const type = reply.headers.get('content-type') ?? '';
    const redirect = reply.status >= 300 && reply.status < 400;
    // 431: Node's HTTP parser refuses over-long headers (a 16 KiB request line) before any route is chosen, in the API's JSON.
    if (reached && !redirect && reply.status !== 431 && !/^text\/html\b/i.test(type)) {
      out.push({ kind: `page ${reply.status} not text/html`, text: `answered ${reply.status} with Content-Type ${JSON.stringify(type)}: ${JSON.stringify(abbreviate(reply.text, 300))}` });
    }
    // A redirect (after a form) goes to another page of this server, never elsewhere.
    const location = reply.headers.get('location');
    if (redirect && !(location && /^(https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?)?\/pay\//.test(location))) {
      out.push({ kind: `page ${reply.status}: a redirect off the pages`, text: `answered ${reply.status} with Location ${JSON.stringify(location)}` });
    }
  } else if (reply.status >= 400 && (!isPlainObject(reply.body) || typeof reply.body.message !== 'string')) {
    out.push({ kind: `${reply.status} without a message`, text: `answered ${reply.status} with an error body that is not a JSON object with a string message: ${JSON.stringify(abbreviate(reply.text, 300))}` });
  }
  const logged = sent.logged.length ? `\n      server logged: ${sent.logged.map((l) => abbreviate(l, 600)).join('\n                     ')}` : '';
  return out.map((v) => ({ kind: v.kind, text: `${describeRequest(request)}\n      -> ${v.text}${logged}` }));
}

/** Refused: an error status, or GraphQL errors with no data. */
export function refused(sent: Sent): boolean {
  const { reply } = sent;
  if (reply.status >= 400) return true;
  if (sent.request.path !== '/graphql') return false;
  const results = Array.isArray(reply.body) ? reply.body : [reply.body];
  return results.every((r) => !isPlainObject(r) || (Array.isArray(r.errors) && r.errors.length > 0 && (!isPlainObject(r.data) || Object.values(r.data).every((v) => v === null))));
}

/** A request that may change data when it succeeds. */
const mayWrite = (r: FuzzRequest) => (r.path === '/graphql' ? /mutation/i.test(r.body ?? '') : r.method !== 'GET');

/**
 * Sends a batch and returns every violation: 5xx, bad error bodies, and refused
 * requests that changed the workspace. One snapshot before and one after the batch
 * when no write succeeded; otherwise each refused request is replayed between two
 * snapshots, since the successful writes changed the workspace anyway.
 */
export async function runBatch(target: Target, batch: FuzzRequest[]): Promise<Violation[]> {
  const snapshot = () => snapshotWorkspace(target.database, target.api.workspaceId);
  const problems: Violation[] = [];
  const before = await snapshot();
  const sent: Sent[] = [];
  for (const request of batch) {
    const s = await sendFuzz(target, request);
    problems.push(...violations(s));
    sent.push(s);
  }
  if (!sent.some((s) => mayWrite(s.request) && !refused(s))) {
    const difference = firstDifference(before, await snapshot());
    if (difference) {
      problems.push({
        kind: 'a refused request changed the workspace',
        text: `refused requests (and reads) changed the workspace: ${difference}\n      requests:\n${sent.map((s) => `        ${s.reply.status} ${describeRequest(s.request)}`).join('\n')}`,
      });
    }
    return problems;
  }
  let state = await snapshot();
  for (const first of sent.filter(refused)) {
    const again = await sendFuzz(target, first.request);
    problems.push(...violations(again));
    const now = await snapshot();
    const difference = refused(again) && firstDifference(state, now);
    if (difference) problems.push({ kind: 'a refused request changed the workspace', text: `${describeRequest(again.request)}\n      -> answered ${again.reply.status} but changed the workspace: ${difference}` });
    state = now;
  }
  return problems;
}

/**
 * One property, checked with fast-check (fixed seed; the examples first, then `runs`
 * random batches); on a failure, fast-check shrinks the batch to a minimal
 * counterexample. To report more than the first defect, the check is repeated with
 * the defects already reported tolerated, until it passes or `maxDefects` are found.
 * Returns one fast-check report (counterexample included) per distinct defect.
 */
export async function checkProperty(
  label: string,
  requests: fc.Arbitrary<FuzzRequest>,
  examples: FuzzRequest[],
  target: Target,
  settings: FuzzSettings,
  maxDefects = 3,
): Promise<string[]> {
  const known = new Set<string>();
  const reports: string[] = [];
  while (reports.length < maxDefects) {
    let shrinkUntil = Infinity;
    let found: string[] = [];
    // The examples run first as one batch; drawn from a subarray, a failing one shrinks to the requests that fail.
    const batches = examples.length
      ? fc.oneof({ weight: 4, arbitrary: fc.array(requests, { minLength: 1, maxLength: settings.batch }) }, { weight: 1, arbitrary: fc.subarray(examples, { minLength: 1 }) })
      : fc.array(requests, { minLength: 1, maxLength: settings.batch });
    const property = fc.asyncProperty(batches, async (batch) => {
      // Shrinking has a budget: past it, candidates pass, and fast-check reports the smallest failure so far.
      if (Date.now() > shrinkUntil) return true;
      const problems = (await runBatch(target, batch)).filter((p) => !known.has(p.kind));
      if (problems.length === 0) return true;
      if (shrinkUntil === Infinity) shrinkUntil = Date.now() + settings.shrinkMs;
      found = [...new Set(problems.map((p) => p.kind))];
      const error = new Error(`${label}:\n  ${problems.map((p) => `[${p.kind}] ${p.text}`).join('\n  ')}`);
      error.stack = `Error: ${error.message}`; // the report is the requests, not where the check threw
      throw error;
    });
    const details = await fc.check(property, {
      seed: settings.seed,
      numRuns: settings.runs + (examples.length ? 1 : 0),
      examples: examples.length ? [[examples]] : [],
      includeErrorInReport: true,
    });
    if (!details.failed) break;
    reports.push(`${label}\n${fc.defaultReportMessage(details)}`);
    // The shrunk counterexample's defects are reported: look for others.
    if (found.length === 0) break;
    for (const kind of found) known.add(kind);
  }
  return reports;
}

/**
 * Every aspect of one REST route; one report per distinct defect found. A public route
 * (`publicRoutes`) takes `{ keyless: true }` and a target seeded by `seedPublic`.
 */
export async function fuzzRestRoute(route: RestRoute, target: Target, settings: FuzzSettings, options: RouteOptions & { aspects?: Aspect[] } = {}): Promise<string[]> {
  const reports: string[] = [];
  const label = `${options.keyless ? 'keyless ' : ''}${route.method} ${route.path}`;
  for (const aspect of options.aspects ?? aspectsOf(route, options)) {
    reports.push(...(await checkProperty(`${label} [${aspect}]`, restRequests(route, aspect, target, options), restExamples(route, aspect, options, target.seeded), target, settings)));
  }
  return reports;
}

export async function fuzzGraphQL(target: Target, settings: FuzzSettings): Promise<string[]> {
  return checkProperty('POST /graphql', graphqlRequests(target), graphqlExamples(), target, settings);
}
