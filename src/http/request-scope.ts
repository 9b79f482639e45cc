import { AsyncLocalStorage } from 'node:async_hooks';

/** The request being served, for code that runs deep inside a library (Yoga's error masking) and must log its id. */
const scope = new AsyncLocalStorage<{ requestId: string }>();

export const inRequestScope = <T>(requestId: string, run: () => T): T => scope.run({ requestId }, run);

export const currentRequestId = (): string => scope.getStore()?.requestId ?? 'none';
