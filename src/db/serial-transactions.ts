import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';

/**
 * A driver adapter factory whose transactions send one statement at a time, in the order
 * they were issued. Prisma passes a transaction's statements on as its callers issue
 * them, and those come several at once (a REST object's GraphQL fields resolve together;
 * the outbox reads the REST objects and the endpoints together). node-postgres then
 * queues them on the transaction's one connection, a queue it deprecates and pg 9
 * removes ("Calling client.query() when the client is already executing a query"). The
 * queue is kept here instead: nothing runs sooner or later than it did in pg's.
 */
export function serialTransactions<F extends SqlDriverAdapterFactory>(factory: F): F {
  return new Proxy(factory, {
    get(target, key, receiver) {
      if (key !== 'connect') return Reflect.get(target, key, receiver);
      return async () => withSerialTransactions(await target.connect());
    },
  });
}

function withSerialTransactions(adapter: SqlDriverAdapter): SqlDriverAdapter {
  return new Proxy(adapter, {
    get(target, key, receiver) {
      if (key !== 'startTransaction') return bound(target, key, receiver);
      return async (...args: Parameters<SqlDriverAdapter['startTransaction']>) => serial(await target.startTransaction(...args));
    },
  });
}

/** Statements, commit and rollback wait for whatever the transaction was sent before them (savepoints go through its statements). */
const QUEUED = new Set<PropertyKey>(['queryRaw', 'executeRaw', 'commit', 'rollback']);

function serial(transaction: Transaction): Transaction {
  let tail: Promise<unknown> = Promise.resolve();
  return new Proxy(transaction, {
    get(target, key, receiver) {
      const member = bound(target, key, receiver);
      if (!QUEUED.has(key) || typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        const run = () => member(...args) as Promise<unknown>;
        const result = tail.then(run, run);
        tail = result.catch(() => {});
        return result;
      };
    },
  });
}

/** A member of `target`, methods called on the proxy (so a savepoint's own statement is queued too). */
function bound(target: object, key: PropertyKey, receiver: unknown): unknown {
  const member = Reflect.get(target, key, receiver);
  return typeof member === 'function' ? (member as (...a: unknown[]) => unknown).bind(receiver) : member;
}
