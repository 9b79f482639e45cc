/**
 * What is known about the request being served, filled in as it goes (for its
 * access-log line and error lines). Handed along explicitly rather than kept in an
 * AsyncLocalStorage, which on Node 20 runs a hook on every promise the process makes.
 */
export interface RequestFacts {
  readonly requestId: string;
  /** The client's IP address: the peer's, or the one a trusted proxy forwarded (TRUST_PROXY); the public routes' rate limit counts by it. */
  readonly clientAddress?: string;
  /** The caller's workspace, once the key is accepted. */
  workspaceId?: string;
  /** The route template (`GET /contacts/{id}`): ids stay out of the access log. */
  route?: string;
}
