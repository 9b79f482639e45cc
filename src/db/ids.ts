import { monotonicFactory } from 'ulid';

/** ULIDs, monotonic within the process: on one instance, id order is creation order. */
export const newId: () => string = monotonicFactory();
