import type { DocumentNode } from 'graphql';
import type { DeliveryOutcome } from '../http/metrics.js';
import type { RequestFacts } from '../http/request-facts.js';

/**
 * The values of OTEL_TRACES_SAMPLER this service understands: OpenTelemetry's own, but for
 * the remote ones (jaeger_remote, xray), which need a sampling server it does not talk to.
 */
export const TRACE_SAMPLERS = ['parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio', 'always_on', 'always_off', 'traceidratio'] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

/** A webhook delivery's attempt, told once its outcome is recorded. */
export interface DeliveryAttempt {
  eventId: string;
  deliveryId: string;
  endpointUrl: string;
  /** Which attempt of the delivery this was, from 1. */
  attempt: number;
  startedAt: number;
  endedAt: number;
  /** The receiver's status, or null when it gave none (timeout, refused connection). */
  status: number | null;
  error: string | null;
  outcome: DeliveryOutcome;
}

/** What the process's tracing does at each point the service reports (src/tracing/sdk.ts). */
export interface Tracing {
  request(request: Request, facts: RequestFacts, serve: (request: Request, facts: RequestFacts) => Promise<Response>): Promise<Response>;
  operation<T>(document: DocumentNode, operationName: string | null | undefined, run: () => T): T;
  deliveryAttempt(attempt: DeliveryAttempt): void;
  /** Sends every span ended so far. */
  flush(): Promise<void>;
  /** Flushes, then stops: the hooks below are free again. */
  shutdown(): Promise<void>;
}
