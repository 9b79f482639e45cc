import type { DocumentNode } from 'graphql';
import type { Config } from '../config.js';
import type { RequestFacts } from '../http/request-facts.js';
import type { DeliveryAttempt, Tracing } from './interface.js';

/**
 * This process's tracing once started; undefined without OTEL_EXPORTER_OTLP_ENDPOINT, and
 * then each hook below costs one check and the SDK is never loaded. Process-wide (as
 * OpenTelemetry's own API is) rather than handed along: the database spans come from
 * Prisma's instrumentation, which reads the active span from OpenTelemetry's context.
 */
let active: Tracing | undefined;

/**
 * Starts tracing when the endpoint is set: the SDK is imported here, not at the top, so
 * a process without it never loads it. Called by the composition root before it builds
 * the app (Yoga's operation spans are a plugin chosen then).
 */
export async function startTracing(
  config: Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_SERVICE_NAME'> & Partial<Pick<Config, 'OTEL_TRACES_SAMPLER' | 'OTEL_TRACES_SAMPLER_ARG'>>,
): Promise<Tracing | undefined> {
  if (!config.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  if (active) throw new Error('tracing is already started in this process');
  const { createTracing } = await import('./sdk.js');
  const started = createTracing({
    endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    serviceName: config.OTEL_SERVICE_NAME,
    sampler: config.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on',
    ratio: config.OTEL_TRACES_SAMPLER_ARG ?? 1,
  });
  active = {
    ...started,
    async shutdown() {
      active = undefined;
      await started.shutdown();
    },
  };
  return active;
}

export const tracingStarted = () => active !== undefined;

/** One server span around `serve`, named by the route template `facts.route` holds once it is answered. */
export function traceRequest(request: Request, facts: RequestFacts, serve: (request: Request, facts: RequestFacts) => Promise<Response>): Promise<Response> {
  return active ? active.request(request, facts, serve) : serve(request, facts);
}

/** A span around one GraphQL operation's execution, named by its type and name (`mutation CreateContact`). */
export function traceOperation<T>(document: DocumentNode, operationName: string | null | undefined, run: () => T): T {
  return active ? active.operation(document, operationName, run) : run();
}

/** A webhook delivery attempt: a trace of its own. */
export function traceDeliveryAttempt(attempt: DeliveryAttempt): void {
  active?.deliveryAttempt(attempt);
}
