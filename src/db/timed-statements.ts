import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';

/** Told each statement's duration, in milliseconds; read at every statement, so it can be set after the client is made. */
export type StatementTimer = () => ((milliseconds: number) => void) | undefined;

const TIMED = new Set<PropertyKey>(['queryRaw', 'executeRaw']);

/**
 * A driver adapter factory whose statements, in and out of transactions, are timed at
 * the driver (two clock reads each): what GET /metrics reports. Prisma's own query
 * events would do it too, at about ten times the cost per statement.
 */
export function timedStatements<F extends SqlDriverAdapterFactory>(factory: F, timer: StatementTimer): F {
  return new Proxy(factory, {
    get(target, key, receiver) {
      if (key !== 'connect') return Reflect.get(target, key, receiver);
      return async () => timed(await target.connect(), timer);
    },
  });
}

function timed<T extends SqlDriverAdapter | Transaction>(queryable: T, timer: StatementTimer): T {
  return new Proxy(queryable, {
    get(target, key, receiver) {
      const member = Reflect.get(target, key, receiver);
      if (typeof member !== 'function') return member;
      // Bound to the adapter itself: its private fields are not the proxy's.
      const bound = (member as (...a: unknown[]) => unknown).bind(target);
      if (key === 'startTransaction') return async (...args: unknown[]) => timed((await bound(...args)) as Transaction, timer);
      if (!TIMED.has(key)) return bound;
      return async (...args: unknown[]) => {
        const observe = timer();
        if (!observe) return bound(...args);
        const started = performance.now();
        try {
          return await bound(...args);
        } finally {
          observe(performance.now() - started);
        }
      };
    },
  });
}
