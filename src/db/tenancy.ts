import { getDatamodel } from '../generated/sqlite/pothos-types.js';
import type { Db } from './client.js';
import { newId } from './ids.js';

/** The columns every new tenant-owned row starts with (the scope below enforces the workspace anyway). */
export const newRow = (workspaceId: string) => ({ id: newId(), workspaceId });

/** Every operation a model delegate has; a scoped delegate has these and nothing else. */
export const OPERATIONS = [
  'findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany',
  'create', 'createMany', 'createManyAndReturn',
  'update', 'updateMany', 'updateManyAndReturn', 'upsert',
  'delete', 'deleteMany',
  'count', 'aggregate', 'groupBy',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** A model's delegate on the client (`PaymentLink` -> `paymentLink`). */
export const delegateOf = (model: string) => model[0]!.toLowerCase() + model.slice(1);

/** The delegate `name` of a client, for code that names its model at run time (the trash, merges); `D` is the part of it the caller uses. */
export const delegateNamed = <D>(db: object, name: string): D => (db as Record<string, D>)[name]!;

/** Every model of the datamodel (both providers share it), with its delegate's name on the client. */
export const MODELS = Object.keys(getDatamodel().datamodel.models).map((model) => ({ model, delegate: delegateOf(model) }));

/** An operation's arguments with the workspace added to its filter and forced onto the rows it creates. */
function scopedArgs(model: string, operation: Operation, args: Record<string, any> | undefined, workspaceId: string): Record<string, any> {
  const a = args ?? {};
  const scope = model === 'Workspace' ? { id: workspaceId } : { workspaceId };
  const stamp = (data: Record<string, unknown>) => (model === 'Workspace' ? data : { ...data, workspaceId });
  switch (operation) {
    case 'create':
      return { ...a, data: stamp(a.data) };
    case 'createMany':
    case 'createManyAndReturn':
      return { ...a, data: [a.data].flat().map(stamp) };
    case 'upsert':
      return { ...a, where: { ...a.where, ...scope }, create: stamp(a.create) };
    default:
      return { ...a, where: { ...a.where, ...scope } };
  }
}

const WORKSPACE = Symbol('workspace');

/** The workspace a scoped client (or its transaction's client) is bound to; raw SQL needs it spelled out. */
export function workspaceOf(db: object): string {
  const id = (db as Record<symbol, unknown>)[WORKSPACE];
  if (typeof id !== 'string') throw new Error('not a workspace-scoped client');
  return id;
}

const MODEL_OF_DELEGATE = new Map(MODELS.map(({ model, delegate }) => [delegate, model]));

/**
 * A client over `base` whose model delegates are `make`'s, each made on first use and
 * then kept, and whose other properties are `own`'s, else `base`'s. The one way the
 * service wraps a client (the workspace scope, the event recorder, coalesced reads):
 * a Proxy rather than a property per model, because a wrapper is made for every
 * transaction, which uses two or three of the ~40 models (a property per model cost
 * ~40 µs per wrapper, for every write).
 */
export function overDelegates<T extends object>(
  base: T,
  make: (model: string, delegate: string) => unknown,
  own: Record<string | symbol, unknown> = {},
): T {
  const made = new Map<string, unknown>();
  return new Proxy(base, {
    get(target, property, receiver) {
      if (typeof property === 'string') {
        const model = MODEL_OF_DELEGATE.get(property);
        if (model !== undefined) {
          let delegate = made.get(property);
          if (delegate === undefined) made.set(property, (delegate = make(model, property)));
          return delegate;
        }
      }
      return Object.hasOwn(own, property) ? own[property] : Reflect.get(target, property, receiver);
    },
    has: (target, property) => Object.hasOwn(own, property) || Reflect.has(target, property),
    // Nothing is assigned to a client: a wrapper is replaced, never changed.
    set: () => false,
    defineProperty: () => false,
  });
}

/**
 * A Prisma client that can only see and write one workspace's rows.
 *
 * Every model operation gets `workspaceId` added to its filter and forced onto the
 * data it creates, so no resolver can forget the scope; an interactive transaction's
 * client is scoped the same way. Relations reached from a scoped row stay in the
 * workspace because rows are only ever linked to ids checked through this client.
 *
 * Plain wrappers over the base client's delegates rather than a `$extends` query
 * extension: the same rule at a tenth of the cost per call (Prisma's extension
 * machinery cost ~10% of a `GET /products/{id}`). What is not a model delegate (the
 * `$` methods) is the base client's.
 */
export function scopeToWorkspace(prisma: Db, workspaceId: string): Db {
  const base = prisma as unknown as Record<string, Record<Operation, (args: unknown) => unknown>>;
  const own: Record<string | symbol, unknown> = { [WORKSPACE]: workspaceId };
  // A transaction's own client has no $transaction (Prisma does not nest them).
  const { $transaction } = prisma as unknown as { $transaction?: (arg: unknown, options?: unknown) => Promise<unknown> };
  if ($transaction) {
    const transaction = $transaction.bind(prisma);
    own.$transaction = (arg: unknown, options?: unknown) =>
      typeof arg === 'function' ? transaction((tx: Db) => (arg as (tx: Db) => unknown)(scopeToWorkspace(tx, workspaceId)), options) : transaction(arg, options);
  }
  return overDelegates(
    prisma,
    (model, delegate) => {
      const from = base[delegate]!;
      const wrapped = Object.create(null) as Record<Operation, (args?: Record<string, any>) => unknown>;
      for (const operation of OPERATIONS) wrapped[operation] = (args) => from[operation](scopedArgs(model, operation, args, workspaceId));
      return Object.freeze(wrapped);
    },
    own,
  );
}

export type ScopedDb = Db;

