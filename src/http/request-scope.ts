import { AsyncLocalStorage } from 'node:async_hooks';

/** What is known about the request being served, filled in as it goes (for logs). */
interface RequestFacts {
  requestId: string;
  /** The caller's workspace, once the key is accepted. */
  workspaceId?: string;
  /** The route template (`GET /contacts/{id}`): ids stay out of the access log. */
  route?: string;
}

/** The request being served, for code that runs deep inside a library (Yoga's error masking) and for the access log. */
const scope = new AsyncLocalStorage<RequestFacts>();

export const inRequestScope = <T>(requestId: string, run: () => T): T => scope.run({ requestId }, run);

export const currentRequestId = (): string => scope.getStore()?.requestId ?? 'none';

/** Records facts about the current request for its access-log line. */
export function noteRequest(facts: Omit<Partial<RequestFacts>, 'requestId'>): void {
  const store = scope.getStore();
  if (store) Object.assign(store, facts);
}

export const currentRequestFacts = (): Readonly<RequestFacts> | undefined => scope.getStore();
