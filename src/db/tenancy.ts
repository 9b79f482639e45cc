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

/** Every model of the datamodel (both providers share it), with its delegate's name on the client. */
export const MODELS = Object.keys(getDatamodel().datamodel.models).map((model) => ({ model, delegate: model[0]!.toLowerCase() + model.slice(1) }));

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

// Own, read-only properties: an assignment would go through the client's own Proxy (the prototype).
const define = (on: object, name: string, value: unknown) => Object.defineProperty(on, name, { value, enumerable: true });

/**
 * A property made on first read, then kept: a transaction's client is scoped anew for
 * each transaction, which uses two or three of the models (and Prisma makes a model's
 * delegate on a transaction's client only when it is read).
 */
export function defineLazily(on: object, name: string, make: () => unknown): void {
  Object.defineProperty(on, name, {
    enumerable: true,
    configurable: true,
    get() {
      const value = make();
      define(on, name, value);
      return value;
    },
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
  const scoped = Object.create(prisma) as Record<string | symbol, unknown>;
  Object.defineProperty(scoped, WORKSPACE, { value: workspaceId });
  const base = prisma as unknown as Record<string, Record<Operation, (args: unknown) => unknown>>;
  for (const { model, delegate } of MODELS) {
    defineLazily(scoped, delegate, () => {
      const from = base[delegate]!;
      const wrapped = Object.create(null) as Record<Operation, (args?: Record<string, any>) => unknown>;
      for (const operation of OPERATIONS) wrapped[operation] = (args) => from[operation](scopedArgs(model, operation, args, workspaceId));
      return Object.freeze(wrapped);
    });
  }
  // A transaction's own client has no $transaction (Prisma does not nest them).
  const { $transaction } = prisma as unknown as { $transaction?: (arg: unknown, options?: unknown) => Promise<unknown> };
  if ($transaction) {
    const transaction = $transaction.bind(prisma);
    define(scoped, '$transaction', (arg: unknown, options?: unknown) =>
      typeof arg === 'function' ? transaction((tx: Db) => (arg as (tx: Db) => unknown)(scopeToWorkspace(tx, workspaceId)), options) : transaction(arg, options));
  }
  return scoped as unknown as Db;
}

export type ScopedDb = Db;

