import {
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLObjectType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { newId } from '../src/db/ids.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from './support/schema.js';
import { restRoutes } from '../src/modules/index.js';
import { compileDocument } from '../src/rest/documents.js';
import type { RestRoute } from '../src/rest/route.js';
import { snakeCase } from '../src/validation/messages.js';
import { type TestApp, startApp } from './support/app.js';
import { type Api, type Seeded, encode, firstDifference, listQueryFields, listedOf, newApi, prefixOf, recordQueryFields, routeInputs, seedWorkspace } from './support/fuzz.js';
import { snapshotWorkspace } from './support/snapshot.js';

// Tenancy, for every route and every GraphQL field, derived from the route table and
// the schema (a new resource is covered without a change here): two workspaces, each
// with one record of every resource; the stranger's requests with the owner's ids
// answer exactly as unknown ids do (404 "<Resource> not found." / NOT_FOUND) and
// change nothing in either workspace, and no list ever shows the owner's records,
// whatever its filters.

let app: TestApp;
let owner: Workspace;
let stranger: Workspace;

interface Workspace {
  api: Api;
  seeded: Seeded;
  /** Every record reachable through GraphQL (stages and events included), by type name. */
  records: Map<string, Record<string, unknown>[]>;
  /** Every id the workspace holds. */
  ids: Set<string>;
}

const requiredArgs = (field: GraphQLField<unknown, unknown>) => field.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined);
const leaves = (type: GraphQLObjectType) =>
  Object.values(type.getFields())
    .filter((f) => !requiredArgs(f) && isLeafType(getNamedType(f.type)))
    .map((f) => f.name);

/** Every record of a workspace through its list fields, with their relations one level down. */
async function collectRecords(api: Api): Promise<Map<string, Record<string, unknown>[]>> {
  const records = new Map<string, Record<string, unknown>[]>();
  const seen = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    // By type and id: a timeline item carries its note's or event's id.
    if (typeof record.__typename === 'string' && typeof record.id === 'string' && !seen.has(`${record.__typename}:${record.id}`)) {
      seen.add(`${record.__typename}:${record.id}`);
      records.set(record.__typename, [...(records.get(record.__typename) ?? []), record]);
    }
    Object.values(record).forEach(visit);
  };
  for (const field of listQueryFields()) {
    const item = getNamedType((getNamedType(field.type) as GraphQLObjectType).getFields().data!.type) as GraphQLObjectType;
    const relations = Object.values(item.getFields())
      .filter((f) => isObjectType(getNamedType(f.type)))
      .map((f) => {
        const related = getNamedType(f.type) as GraphQLObjectType;
        const data = related.getFields().data;
        const inner = data ? (getNamedType(data.type) as GraphQLObjectType) : related;
        const selection = `__typename ${leaves(inner).join(' ')}`;
        return `${f.name} { ${data ? `data { ${selection} }` : selection} }`;
      });
    const reply = await api.graphql(`{ ${field.name}(perPage: 100) { data { __typename ${leaves(item).join(' ')} ${relations.join(' ')} } } }`);
    expect([field.name, reply.status, reply.body.errors]).toEqual([field.name, 200, undefined]);
    visit(reply.body.data);
  }
  return records;
}

async function workspace(tag: string): Promise<Workspace> {
  const api = await newApi(app);
  const seeded = await seedWorkspace(api, tag);
  const records = await collectRecords(api);
  const all = [...records.values()].flat();
  // Ids, and the other ids a record goes by (a stage's external id).
  const ids = new Set(all.flatMap((r) => [r.id as string, ...(typeof r.externalId === 'string' ? [r.externalId] : [])]));
  for (const id of seeded.pool) expect(ids).toContain(id);
  return { api, seeded, records, ids };
}

beforeAll(async () => {
  app = await startApp();
  owner = await workspace('owner');
  stranger = await workspace('stranger');
});
afterAll(() => app?.close());

const both = () => Promise.all([snapshotWorkspace(app.database, owner.api.workspaceId), snapshotWorkspace(app.database, stranger.api.workspaceId)]);

/** Runs `request` and checks that neither workspace changed. */
async function changesNothing<T>(label: string, request: () => Promise<T>): Promise<T> {
  const before = await both();
  const result = await request();
  const after = await both();
  expect([label, firstDifference(before[0], after[0]) ?? 'owner unchanged', firstDifference(before[1], after[1]) ?? 'stranger unchanged']).toEqual([
    label,
    'owner unchanged',
    'stranger unchanged',
  ]);
  return result;
}

/** `PaymentLink` -> "Payment link", as not-found messages name a resource. */
const humanize = (typeName: string) => typeName.replace(/(?<=[a-z])([A-Z])/g, (c) => ` ${c.toLowerCase()}`);

const rootField = (route: RestRoute) => {
  const { operation } = compileDocument(schema, route.document, `${route.method} ${route.path}`);
  const first = operation.selectionSet.selections[0] as { name: { value: string } };
  const parent = operation.operation === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
  return parent.getFields()[first.name.value]!;
};

/** The type a field's result is about: its type, or a payload's record (`{ created, event }` -> the event's type). */
function recordTypeOf(field: GraphQLField<unknown, unknown>): GraphQLObjectType | undefined {
  const named = getNamedType(field.type);
  if (!isObjectType(named)) return undefined;
  if ('id' in named.getFields()) return named;
  const inner = Object.values(named.getFields()).find((f) => isObjectType(getNamedType(f.type)));
  return inner ? (getNamedType(inner.type) as GraphQLObjectType) : undefined;
}

/** A new contact or company of the stranger's, for a merge to fold. */
async function mergeSource(prefix: string): Promise<string> {
  const body = prefix === 'contacts' ? { first_name: 'Fold', email: `fold-${newId()}@example.com` } : { name: 'Fold' };
  return (await stranger.api.rest('POST', `/${prefix}`, body)).id as string;
}

/** A route's path for the record `id` (the trash's purge: a trashed task). */
const concrete = (path: string, id: string) => path.replace('{type}', 'tasks').replace('{id}', id);

/** The resource a REST route's `{id}` names: the type its `GET /<prefix>/{id}` route reads, or without one (a delivery) the type the route answers with. */
function resourceOfPath(route: RestRoute): string {
  // The trash's purge names a trashed task (the seed's).
  if (prefixOf(route.path) === 'trash') return 'Task';
  const read = restRoutes.find((r) => r.method === 'GET' && r.path === `/${prefixOf(route.path)}/{id}`);
  const type = read ? getNamedType(rootField(read).type) : recordTypeOf(rootField(route));
  if (!type) throw new Error(`nothing names the resource of ${route.path}`);
  return type.name;
}

/**
 * A valid input for a mutation of `type`: the stranger's own record of that type,
 * its fields that the input type takes (a client may send back what it read).
 */
function inputFrom(input: GraphQLInputObjectType, type: GraphQLObjectType, naming: (name: string) => string): Record<string, unknown> {
  const record = stranger.records.get(type.name)?.[0];
  if (!record) throw new Error(`the stranger has no ${type.name} to build a ${input.name} from: extend seedWorkspace`);
  return fit(input, record, naming) as Record<string, unknown>;
}

const SAMPLES: Record<string, unknown> = { DateTime: '2026-01-01T00:00:00.000Z', String: 'x', Int: 1, Boolean: true };

/** An input with a sample value for each required field. */
function sampleInput(type: GraphQLInputObjectType): Record<string, unknown> {
  return Object.fromEntries(Object.values(type.getFields()).filter((f) => isNonNullType(f.type)).map((f) => [f.name, SAMPLES[getNamedType(f.type).name]]));
}

/** A value read from the API, cut to what an input type takes (nested inputs too), keys named by `naming`. */
function fit(type: GraphQLInputType, value: unknown, naming: (name: string) => string): unknown {
  const bare = isNonNullType(type) ? type.ofType : type;
  if (value === null || value === undefined) return value;
  if (isListType(bare)) return Array.isArray(value) ? value.map((v) => fit(bare.ofType, v, naming)) : value;
  if (!isInputObjectType(bare) || typeof value !== 'object') return value;
  const given = value as Record<string, unknown>;
  return Object.fromEntries(Object.values(bare.getFields()).filter((f) => f.name in given).map((f) => [naming(f.name), fit(f.type, given[f.name], naming)]));
}

/** The JSON body of a REST write route: the stranger's record of the route's type, snake_case. */
function restBody(route: RestRoute): unknown {
  const { body } = routeInputs(route);
  const type = recordTypeOf(rootField(route));
  if (!body) return undefined;
  return type ? inputFrom(body, type, snakeCase) : Object.fromEntries(Object.entries(sampleInput(body)).map(([k, v]) => [snakeCase(k), v]));
}

describe('REST: the other workspace\'s ids are unknown ids', () => {
  const routes = restRoutes.filter((r) => r.path.includes('{id}'));
  // Deletions last, so the stranger's own records stay for the routes before.
  const ordered = [...routes.filter((r) => r.method !== 'DELETE'), ...routes.filter((r) => r.method === 'DELETE')];

  it('covers every route with an {id}', () => {
    expect(routes.length).toBeGreaterThanOrEqual(40);
  });

  it.each(ordered.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (label, route) => {
    const prefix = prefixOf(route.path);
    // A merge folds a record of the caller's own, made for it (API.md section 12).
    const body = route.path.endsWith('/merge') ? { source_ids: [await mergeSource(prefix)] } : route.method === 'GET' ? undefined : restBody(route);
    const options = body === undefined ? {} : { body };
    // The same request on the stranger's own record succeeds: the body is valid, only the id differs.
    if (route.method !== 'DELETE') {
      // A restore needs its record in the trash first (API.md section 12); it comes back with it.
      if (route.path.endsWith('/restore')) expect((await stranger.api.request('DELETE', `/api/v1/${prefix}/${stranger.seeded.ids[prefix]}`)).status).toBe(204);
      const own = await stranger.api.request(route.method, `/api/v1${concrete(route.path, stranger.seeded.ids[prefix]!)}`, options);
      expect([label, 'own record', own.status < 300 ? 'ok' : own.body]).toEqual([label, 'own record', 'ok']);
    }
    const foreign = await changesNothing(label, () => stranger.api.request(route.method, `/api/v1${concrete(route.path, owner.seeded.ids[prefix]!)}`, options));
    expect([label, foreign.status, foreign.body]).toEqual([label, 404, { message: `${humanize(resourceOfPath(route))} not found.` }]);
    // And the owner still has it, as it was (a trashed record: in its trash).
    if (prefix === 'trash') expect((await owner.api.request('GET', '/api/v1/trash')).body.data.map((t: { id: string }) => t.id)).toContain(owner.seeded.ids.trash);
    else expect((await owner.api.request('GET', `/api/v1/${prefix}/${owner.seeded.ids[prefix]}`)).status).toBe(200);
  });
});

describe('REST: bodies cannot reach the other workspace\'s records', () => {
  /** Every PUT route's fields that hold ids (`company_ids`, `user_id`, ...), from its input type. */
  const references = restRoutes
    .filter((r) => r.method === 'PUT' && r.path.includes('{id}'))
    .flatMap((route) => {
      const { body } = routeInputs(route);
      return Object.values(body?.getFields() ?? {})
        .filter((f) => getNamedType(f.type).name === 'ID')
        .map((f) => [`${route.method} ${route.path} ${snakeCase(f.name)}`, route, snakeCase(f.name), isListType(isNonNullType(f.type) ? f.type.ofType : f.type)] as const);
    });

  it('covers every id field of every update', () => {
    expect(references.length).toBeGreaterThanOrEqual(10);
  });

  it.each(references)('%s: any of the owner\'s ids of its type is an unknown id (422)', async (label, route, field, list) => {
    const path = `/api/v1${route.path.replace('{id}', stranger.seeded.ids[prefixOf(route.path)]!)}`;
    const base = restBody(route) as Record<string, unknown>;
    expect([label, (await stranger.api.request('PUT', path, { body: base })).status]).toEqual([label, 200]);
    // The ids of the type the field names (`company_ids`: the owner's companies); every id when it names none (`owner_ids`).
    for (const id of ownerRecordsNamedBy(field.replaceAll('_', ''), [...owner.records.keys()]).map((r) => r.id as string)) {
      const reply = await changesNothing(`${label} ${id}`, () => stranger.api.request('PUT', path, { body: { ...base, [field]: list ? [id] : id } }));
      expect([label, id, reply.status, Object.keys(reply.body?.errors ?? {})]).toEqual([label, id, 422, [field]]);
    }
  });

  it('PUT /contacts/upsert with the owner\'s e-mail creates the stranger\'s own contact', async () => {
    const email = owner.seeded.records.contacts.email as string;
    const reply = await stranger.api.request('PUT', '/api/v1/contacts/upsert', { body: { first_name: 'Other', email } });
    expect([reply.status, reply.body.email]).toEqual([201, email]);
    expect(owner.ids.has(reply.body.id)).toBe(false);
    const own = await owner.api.request('GET', `/api/v1/contacts/${owner.seeded.ids.contacts}`);
    expect([own.status, own.body.first_name]).toEqual([200, owner.seeded.records.contacts.first_name]);
  });
});

/** The owner's records of each type whose name a field's name spells (`companyIds` -> Company), else of `fallback`. */
function ownerRecordsNamedBy(fieldName: string, fallback: string[]): Record<string, unknown>[] {
  const spelled = [...owner.records.keys()].filter((type) => fieldName.toLowerCase().includes(type.toLowerCase()));
  return (spelled.length ? spelled : fallback).flatMap((type) => owner.records.get(type) ?? []);
}

/**
 * Filter values worth trying on a list of `itemType`: what would match the owner's
 * records there. An id filter gets the owner's ids of the type its name spells (all of
 * them when it spells none); an instant the owner's instants there; a text filter the
 * owner's value of the field of that name, or else every text of the owner's records of
 * the listed type (a `search`).
 */
function filterValues(type: GraphQLInputObjectType, itemType: string): { name: string; value: unknown }[] {
  const instant = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v);
  const texts = (records: Record<string, unknown>[], dates = false) => [
    ...new Set(records.flatMap((r) => Object.values(r).filter((v): v is string => typeof v === 'string' && v !== '' && instant(v) === dates))),
  ];
  const listed = owner.records.get(itemType) ?? [];
  return Object.values(type.getFields()).flatMap((field) => {
    const named = getNamedType(field.type);
    const own = listed.map((r) => r[field.name]).filter((v): v is string => typeof v === 'string' && v !== '');
    const values: unknown[] =
      isEnumType(named)
        ? named.getValues().map((v) => v.name)
        : isScalarType(named) && named.name === 'Boolean'
          ? [true, false]
          : isScalarType(named) && named.name === 'ID'
            ? ownerRecordsNamedBy(field.name, [...owner.records.keys()]).flatMap((r) => [r.id as string, ...(typeof r.externalId === 'string' ? [r.externalId] : [])])
            : isListType(field.type) || !isScalarType(named)
              ? []
              : named.name === 'DateTime'
                ? texts(listed, true)
                : own.length
                ? [...new Set(own)]
                : texts(listed);
    return values.map((value) => ({ name: field.name, value }));
  });
}

/** The record type of a list field's items (`contacts` -> Contact). */
const itemTypeOf = (field: GraphQLField<unknown, unknown>) => getNamedType((getNamedType(field.type) as GraphQLObjectType).getFields().data!.type) as GraphQLObjectType;

/** Every id of the owner that a response mentions. */
const leaked = (body: unknown) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return [...owner.ids].filter((id) => text.includes(id));
};

describe('REST: lists never show the other workspace\'s records', () => {
  const lists = restRoutes.filter((r) => r.method === 'GET' && r.document.includes('$page'));

  it.each(lists.map((r) => [`${r.method} ${r.path}`, r] as const))('%s, with every filter', async (label, route) => {
    // A nested list (`/webhook-endpoints/{id}/deliveries`) is each workspace's own parent's list.
    const path = (w: Workspace) => route.path.replace('{id}', w.seeded.ids[prefixOf(route.path)]!);
    // A CSV export (API.md section 8) walks the whole list: no page parameters, and its answer is text.
    const paging = route.csv ? ['sort=-id', 'sort=id'] : ['per_page=100', 'per_page=100&page=1'];
    const own = await owner.api.request('GET', `/api/v1${path(owner)}?${paging[0]}`);
    expect(own.status).toBe(200);
    const listed = owner.seeded.ids[listedOf(route.path)]!;
    if (route.csv) expect(own.text).toContain(listed);
    else expect(own.body.data.map((r: { id: string }) => r.id)).toContain(listed);

    const { filter } = routeInputs(route);
    const queries = [...paging, ...(filter ? filterValues(filter, itemTypeOf(rootField(route)).name).map(({ name, value }) => `${paging[0]}&${snakeCase(name)}=${encode(String(value))}`) : [])];
    expect(queries.length).toBeGreaterThan(filter ? 2 : 1);
    let answered = 0;
    for (const query of queries) {
      const reply = await stranger.api.request('GET', `/api/v1${path(stranger)}?${query}`);
      expect([label, query, reply.status < 500]).toEqual([label, query, true]);
      if (reply.status !== 200) continue; // a filter value of the wrong shape (422) shows nothing either
      answered += 1;
      expect([label, query, leaked(route.csv ? reply.text : reply.body)]).toEqual([label, query, []]);
    }
    expect(answered).toBeGreaterThan(queries.length / 2);
  });
});

/** Every query and mutation field that takes a record's id (`id`, `transactionId`, ...). */
const idArguments = (field: GraphQLField<unknown, unknown>) => field.args.filter((a) => isNonNullType(a.type) && getNamedType(a.type).name === 'ID');

/** The owner's ids that may name the record a field's id argument means: of every type the field's name mentions. */
function ownerIdsFor(field: GraphQLField<unknown, unknown>): string[] {
  const types = [...owner.records.keys()].filter((type) => field.name.toLowerCase().includes(type.toLowerCase()));
  const ids = types.flatMap((type) => owner.records.get(type)!.map((r) => r.id as string));
  return ids.length ? ids : [...owner.ids];
}

describe('GraphQL: the other workspace\'s ids are unknown ids', () => {
  const single = recordQueryFields();
  // purgeTrashed names its record by type and id: test/trash.test.ts covers it across workspaces.
  const mutations = Object.values(schema.getMutationType()!.getFields()).filter((f) => idArguments(f).length > 0 && f.name !== 'purgeTrashed');

  it('covers every single-record query and every mutation that takes an id', () => {
    expect(single.length).toBeGreaterThanOrEqual(14);
    expect(mutations.length).toBeGreaterThanOrEqual(25);
  });

  it.each(single.map((f) => [f.name, f] as const))('query %s(id)', async (name, field) => {
    const type = getNamedType(field.type) as GraphQLObjectType;
    const ids = owner.records.get(type.name)?.map((r) => r.id as string) ?? [];
    expect([name, ids.length > 0]).toEqual([name, true]);
    const document = `query ($id: ID!) { ${name}(id: $id) { __typename ${leaves(type).join(' ')} } }`;
    expect((await owner.api.graphql(document, { id: ids[0] })).body.data?.[name]?.id).toBe(ids[0]);
    for (const id of ids) {
      const reply = await changesNothing(name, () => stranger.api.graphql(document, { id }));
      expect([name, id, reply.body.data?.[name] ?? null, reply.body.errors?.map((e: { extensions?: { code?: string } }) => e.extensions?.code)]).toEqual([name, id, null, ['NOT_FOUND']]);
    }
  });

  // Deletions last, so the stranger's own records stay for the mutations before.
  const ordered = [...mutations.filter((m) => !m.name.startsWith('delete')), ...mutations.filter((m) => m.name.startsWith('delete'))];
  it.each(ordered.map((f) => [f.name, f] as const))('mutation %s', async (name, field) => {
    const idArgs = idArguments(field);
    const inputArg = field.args.find((a) => isInputObjectType(getNamedType(a.type)));
    const type = recordTypeOf(field);
    const inputType = inputArg && (getNamedType(inputArg.type) as GraphQLInputObjectType);
    // An input about no record type (a replay's `since`) gets a sample of each required field.
    // (A required field the record has no value for, as a provider event's transaction reference, gets a sample.)
    const merge = name.startsWith('merge') ? (name === 'mergeContacts' ? 'contacts' : 'companies') : undefined;
    const input = merge ? { sourceIds: [await mergeSource(merge)] } : inputType && (type ? { ...sampleInput(inputType), ...inputFrom(inputType, type, (n) => n) } : sampleInput(inputType));
    const named = getNamedType(field.type);
    const selection = isObjectType(named) ? `{ __typename }` : '';
    const args = [...idArgs.map((a) => `${a.name}: $id`), ...(inputArg ? [`${inputArg.name}: $input`] : [])];
    const document = `mutation ($id: ID!${inputArg ? `, $input: ${String(inputArg.type)}` : ''}) { ${name}(${args.join(', ')}) ${selection} }`;
    // A provider's event names its transaction by the provider's reference, which no sample input has: test/checkout.test.ts ingests one.
    if (!name.startsWith('delete') && type && name !== 'recordProviderEvent') {
      // On the stranger's own record (of the type the id names), the same mutation works.
      // refundPayment names a transaction: the one record type its name does not spell.
      const named = name === 'refundPayment' ? 'PaymentTransaction' : name === 'mergeCompanies' ? 'Company' : undefined;
      const ownIds = [...stranger.records.entries()].filter(([t]) => (named ? t === named : name.toLowerCase().includes(t.toLowerCase()))).flatMap(([, rs]) => rs.map((r) => r.id as string));
      // A restore needs its record in the trash first (API.md section 12); it comes back with it.
      if (name.startsWith('restore')) {
        const prefix = restRoutes.find((r) => r.document.includes(`${name}(`))!.path.split('/')[1]!;
        for (const id of ownIds) expect((await stranger.api.request('DELETE', `/api/v1/${prefix}/${id}`)).status).toBe(204);
      }
      const results = await Promise.all(ownIds.map((id) => stranger.api.graphql(document, { id, input })));
      expect([name, results.some((r) => r.body.errors === undefined) || results.map((r) => r.body.errors)]).toEqual([name, true]);
    }
    for (const id of ownerIdsFor(field)) {
      const reply = await changesNothing(`${name}(${id})`, () => stranger.api.graphql(document, { id, input }));
      expect([name, id, reply.body.data?.[name] ?? null, reply.body.errors?.map((e: { extensions?: { code?: string } }) => e.extensions?.code)]).toEqual([name, id, null, ['NOT_FOUND']]);
    }
  });
});

describe('GraphQL: lists never show the other workspace\'s records', () => {
  it.each(listQueryFields().map((f) => [f.name, f] as const))('%s, with every filter', async (name, field) => {
    const item = itemTypeOf(field);
    const relations = Object.values(item.getFields())
      .filter((f) => isObjectType(getNamedType(f.type)))
      .map((f) => {
        const related = getNamedType(f.type) as GraphQLObjectType;
        return related.getFields().data ? `${f.name} { data { id } }` : `${f.name} { ${'id' in related.getFields() ? 'id' : '__typename'} }`;
      });
    const filterArg = field.args.find((a) => a.name === 'filter');
    const filterType = filterArg && (getNamedType(filterArg.type) as GraphQLInputObjectType);
    const document = `query ${filterType ? `($filter: ${filterType.name})` : ''} { ${name}(perPage: 100${filterType ? ', filter: $filter' : ''}) { total data { ${leaves(item).join(' ')} ${relations.join(' ')} } } }`;
    const own = await owner.api.graphql(document, {});
    expect([name, own.body.errors]).toEqual([name, undefined]);
    expect(own.body.data[name].data.length).toBeGreaterThan(0);
    const filters = [{}, ...(filterType ? filterValues(filterType, item.name).map(({ name: key, value }) => ({ [key]: value })) : [])];
    let answered = 0;
    for (const filter of filters) {
      const reply = await stranger.api.graphql(document, filterType ? { filter } : {});
      if (reply.body.errors) {
        expect([name, filter, reply.body.errors.map((e: { extensions?: { code?: string } }) => e.extensions?.code)]).toEqual([name, filter, ['BAD_USER_INPUT']]);
        continue;
      }
      answered += 1;
      expect([name, filter, leaked(reply.body)]).toEqual([name, filter, []]);
    }
    expect(answered).toBeGreaterThan(filters.length / 2);
  });
});
