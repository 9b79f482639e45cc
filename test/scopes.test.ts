import { getNamedType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, hashKey } from '../src/auth/api-keys.js';
import { ANY_RESOURCE, SCOPE_RESOURCES, type Scope, parseScopes, routeScope } from '../src/auth/scopes.js';
import { newId } from '../src/db/ids.js';
import { schema } from './support/schema.js';
import { restRoutes } from '../src/modules/index.js';
import { type TestApp, send, startApp } from './support/app.js';
import { databaseUrl } from './support/file-database.js';
import { cli } from './support/cli.js';

// API key scopes (API.md section 9) over the whole route table and every GraphQL root field.
let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

/** A key of a new workspace (or of `workspace`) holding `scopes`. */
async function key(scopes: string[], workspace = `ws-${newId()}`, expiresInDays?: number) {
  return (await createKey(app.database.prisma, workspace, 'scoped', { scopes, expiresInDays })).key;
}

/** One key per set of scopes for the route table's walk (its workspace stays empty: only the scope check is asked). */
const shared = new Map<string, Promise<string>>();
const keyFor = (scopes: string[]) => shared.get(scopes.join()) ?? shared.set(scopes.join(), key(scopes)).get(scopes.join())!;
const rest = (key: string, method: string, path: string, raw?: string) =>
  send(`${app.url}/api/v1${path}`, method, { raw, headers: { 'X-Api-Key': key, ...(raw === undefined ? {} : { 'Content-Type': 'application/json' }) } });
const graphql = (key: string, query: string) => send(`${app.url}/graphql`, 'POST', { body: { query }, headers: { 'X-Api-Key': key } });

const other = (resource: string) => SCOPE_RESOURCES.find((r) => r !== resource)!;
/** Scopes that hold everything but `scope`. */
const without = (scope: Scope) => (scope.access === 'read' ? [`${other(scope.resource)}:write`] : ['read', `${other(scope.resource)}:write`]);

describe('REST: every route is scoped, checked before the body is read', () => {
  const table = restRoutes.map((r) => [`${r.method} ${r.path}`, r] as const);
  it.each(table)('%s', async (_label, route) => {
    const scope = routeScope(route);
    if (scope.resource === ANY_RESOURCE) {
      // Search, the event log, the trash: any key reads them (each leaves out what the key cannot read).
      const path = `${app.url}/api/v1${route.path.replace(/\{[^}]+\}/g, 'x')}`;
      const answered = await fetch(path, { method: route.method, headers: { 'X-Api-Key': await keyFor(['tickets:read']) } });
      await answered.body?.cancel();
      if (scope.access === 'read') return expect(answered.status === 403).toBe(false);
      // The trash's purge: a key that writes something passes the route (the resolver checks the type's own scope).
      expect(answered.status).toBe(403);
      const writer = await fetch(path, { method: route.method, headers: { 'X-Api-Key': await keyFor(['tickets:write']) } });
      await writer.body?.cancel();
      expect(writer.status === 403).toBe(false);
      return;
    }
    expect(SCOPE_RESOURCES).toContain(scope.resource);
    const path = route.path.replace(/\{[^}]+\}/g, 'x');
    // Out of scope: 403, even with a body that is not JSON (it is never read).
    const refused = await rest(await keyFor(without(scope)), route.method, path, route.method === 'GET' ? undefined : '{not json');
    expect([refused.status, refused.body]).toEqual([403, { message: 'This action is unauthorized.' }]);
    // The route's own scope, and the broader ones that include it, pass the check.
    for (const scopes of [[`${scope.resource}:${scope.access}`], [`${scope.resource}:write`], [scope.access]]) {
      const passed = await rest(await keyFor(scopes), route.method, path, route.method === 'GET' ? undefined : '{}');
      expect([scopes, passed.status]).not.toEqual([scopes, 403]);
    }
  });
});

describe('GraphQL: every root field is scoped', () => {
  const fields = [
    ...Object.values(schema.getQueryType()!.getFields()).map((f) => ['read', f] as const),
    ...Object.values(schema.getMutationType()!.getFields()).map((f) => ['write', f] as const),
  ];

  it('names a resource and an access for each root field, the same as the REST routes that run it', () => {
    for (const [access, field] of fields) {
      const scope = field.extensions.scope as Scope | undefined;
      expect([field.name, scope?.access, SCOPE_RESOURCES.includes(scope?.resource as never) || scope?.resource === ANY_RESOURCE]).toEqual([field.name, access, true]);
    }
    for (const route of restRoutes) {
      const name = /\{\s*(\w+)/.exec(route.document.slice(route.document.indexOf('{')))![1]!;
      const field = schema.getQueryType()!.getFields()[name] ?? schema.getMutationType()!.getFields()[name]!;
      expect([name, (field.extensions.scope as Scope).resource]).toEqual([name, routeScope(route).resource]);
    }
  });

  it('answers FORBIDDEN for each field out of scope while the others resolve', async () => {
    const workspace = `ws-${newId()}`;
    const writer = await key(['write'], workspace);
    expect((await rest(writer, 'POST', '/contacts', JSON.stringify({ first_name: 'Ada', email: 'ada@example.com' }))).status).toBe(201);
    const reader = await key(['contacts:read'], workspace);
    const reply = await graphql(reader, '{ contacts { total } users { total } deals { total } }');
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ contacts: { total: 1 }, users: null, deals: null });
    expect(reply.body.errors.map((e: { message: string; path: string[]; extensions: { code: string } }) => [e.path, e.extensions.code, e.message])).toEqual([
      [['users'], 'FORBIDDEN', 'This action is unauthorized.'],
      [['deals'], 'FORBIDDEN', 'This action is unauthorized.'],
    ]);
    // A mutation out of scope writes nothing.
    const mutation = await graphql(reader, 'mutation { createContact(input: { firstName: "Bo", email: "bo@example.com" }) { id } }');
    expect(mutation.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['FORBIDDEN']);
    expect((await graphql(reader, '{ contacts { total } }')).body.data).toEqual({ contacts: { total: 1 } });
    // `read` reads everything and writes nothing.
    const everything = await key(['read'], workspace);
    expect((await graphql(everything, '{ contacts { total } users { total } }')).body.data).toEqual({ contacts: { total: 1 }, users: { total: 0 } });
    expect(getNamedType(schema.getQueryType()!.getFields().contacts!.type).name).toBe('ContactPage');
  });
});

describe('keys', () => {
  it('scopes parse to the known ones; anything else is named as invalid', () => {
    expect(parseScopes(' read, contacts:write ,read')).toEqual({ scopes: ['read', 'contacts:write'], invalid: [] });
    expect(parseScopes('contacts:delete,nothing:read,Write,payment-links:read,:read')).toEqual({
      scopes: ['contacts:delete', 'nothing:read', 'Write', 'payment-links:read', ':read'],
      invalid: ['contacts:delete', 'nothing:read', 'Write', ':read'],
    });
    expect(parseScopes(',')).toEqual({ scopes: [], invalid: [] });
  });

  it('an expired key is 401, as an unknown one', async () => {
    const expiring = await key(['write'], `ws-${newId()}`, 1);
    expect((await rest(expiring, 'GET', '/contacts')).status).toBe(200);
    const expired = await key(['write'], `ws-${newId()}`, 1);
    await app.database.prisma.apiKey.updateMany({ where: { hash: hashKey(expired) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const reply = await rest(expired, 'GET', '/contacts');
    expect([reply.status, reply.body]).toEqual([401, { message: 'Unauthenticated.' }]);
  });

  it("never cuts an allowed operation's side effects: a payment-transactions:write key fails a coupon checkout, and the redemption is given back", async () => {
    const workspace = `ws-${newId()}`;
    const admin = await key(['write'], workspace);
    const call = (k: string, method: string, path: string, body?: unknown) => send(`${app.url}/api/v1${path}`, method, { body, headers: { 'X-Api-Key': k } });
    const account = (await call(admin, 'POST', '/payment-provider-accounts', { name: 'Test', provider: 'test' })).body;
    const link = (await call(admin, 'POST', '/payment-links', { name: 'Plan', amount: 100, currency: 'USD', payment_provider_account_id: account.id })).body;
    await call(admin, 'POST', `/payment-links/${link.id}/activate`);
    const coupon = (await call(admin, 'POST', '/payment-coupons', { code: 'HALF', type: 'percent', value: 50, max_redemptions: 1, payment_link_id: link.id })).body;
    const checkout = await send(`${app.url}/api/v1/public/payment-links/${link.public_token}/checkouts`, 'POST', { body: { coupon_code: 'HALF', payer: { name: 'Ada', email: 'ada@x.io' } } });
    expect(checkout.status).toBe(201);
    expect((await call(admin, 'GET', `/payment-coupons/${coupon.id}`)).body.times_redeemed).toBe(1);
    const [transaction] = (await call(admin, 'GET', '/payment-transactions')).body.data;

    const provider = await key(['payment-transactions:write'], workspace);
    const failed = await call(provider, 'POST', `/payment-transactions/${transaction.id}/events`, { type: 'payment.failed', status: 'failed', provider_reference: 'evt_failed', occurred_at: '2026-11-28T10:00:00.000Z' });
    expect(failed.status).toBe(201);
    expect((await call(admin, 'GET', `/payment-transactions/${transaction.id}`)).body.status).toBe('failed');
    const given = (await call(admin, 'GET', `/payment-coupons/${coupon.id}`)).body;
    expect(given.times_redeemed).toBe(0);
    // The coupon's event is whole: its object is the coupon as its GET shows it, whatever the key could read.
    const events = (await call(admin, 'GET', `/events?type=payment_coupon.updated&record_id=${coupon.id}`)).body.data;
    // Newest first: the redemption given back by this key's write, then the checkout's redemption.
    expect(events.map((e: { data: unknown; actor: { type: string } }) => [e.data, e.actor.type])).toEqual([
      [{ object: given, previous_attributes: { times_redeemed: 1 } }, 'api_key'],
      [expect.objectContaining({ previous_attributes: { times_redeemed: 0 } }), 'checkout'],
    ]);
    expect((await call(admin, 'GET', `/events?type=payment_transaction.updated&record_id=${transaction.id}`)).body.data[0].data.object.status).toBe('failed');
  });

  // The command line's parsing is the same whatever the database (the keys it stores are walked above on both): once.
  it.runIf(process.env.TEST_PROVIDER !== 'postgresql')('the command line makes scoped and expiring keys, lists them, and refuses an unknown scope', async () => {
    const workspace = `cli-${newId()}`;
    const env = { DATABASE_URL: databaseUrl() };
    const made = await cli(['keys', 'create', '--workspace', workspace, '--scopes', 'contacts:read,deals:write', '--expires-in-days', '30', '--json'], env);
    expect(made.code).toBe(0);
    const { key: scoped } = JSON.parse(made.stdout);
    expect((await rest(scoped, 'GET', '/contacts')).status).toBe(200);
    expect((await rest(scoped, 'GET', '/users')).status).toBe(403);
    for (const bad of [['--scopes', 'contacts:read,nothing:read'], ['--expires-in-days', '0']]) {
      const refused = await cli(['keys', 'create', '--workspace', workspace, ...bad], env);
      expect([bad, refused.code, refused.stdout]).toEqual([bad, 2, '']);
    }
    // One key: the refused ones made none.
    const listed = (await cli(['keys', 'list', '--workspace', workspace], env)).stdout.trim().split('\n');
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatch(/scopes contacts:read,deals:write {2}expires \d{4}-/);
  });
});
