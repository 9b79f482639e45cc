import { type Attributes, type Context, ROOT_CONTEXT, SpanKind, SpanStatusCode, type TextMapGetter, context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-node';
import { PrismaInstrumentation } from '@prisma/instrumentation';
import { Kind, getOperationAST } from 'graphql';
import type { RequestFacts } from '../http/request-facts.js';
import type { DeliveryAttempt, TraceSampler, Tracing } from './interface.js';

const headersGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

/**
 * Prisma starts a trace of its own for a statement outside any span: the background
 * loops poll every half second, so every process would send a trace that often. Such
 * roots are dropped; a statement under a request's or an attempt's span goes to `inner`.
 */
function withoutPrismaRoots(inner: Sampler): Sampler {
  return {
    shouldSample: (parent, traceId, spanName, ...rest) =>
      spanName.startsWith('prisma:') && !trace.getSpanContext(parent) ? { decision: SamplingDecision.NOT_RECORD } : inner.shouldSample(parent, traceId, spanName, ...rest),
    toString: () => `WithoutPrismaRoots{${inner.toString()}}`,
  };
}

/** OTEL_TRACES_SAMPLER's sampler (OpenTelemetry's meaning of each name), with `ratio` for the traceidratio ones. */
function samplerOf(name: TraceSampler, ratio: number): Sampler {
  const kind = name.replace(/^parentbased_/, '');
  const own = kind === 'always_off' ? new AlwaysOffSampler() : kind === 'traceidratio' ? new TraceIdRatioBasedSampler(ratio) : new AlwaysOnSampler();
  const root = withoutPrismaRoots(own);
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/** `GET /api/v1/contacts/{id}` is the method and the template; anything else (`unmatched`, `CORS preflight`) has no template. */
function routeTemplate(method: string, route: string | undefined): string | undefined {
  return route?.startsWith(`${method} `) ? route.slice(method.length + 1) : undefined;
}

/** The path of a request's URL, without building a URL object (the query is left out: it may carry personal data). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const end = url.search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

/**
 * The OpenTelemetry SDK of a serving process: spans batched to an OTLP/HTTP collector
 * (JSON), the W3C trace-context propagator for a client's `traceparent`, Node's
 * AsyncLocalStorage carrying the active span (so that Prisma's statement spans find
 * their operation), and Prisma's instrumentation. Loaded only by `startTracing`.
 */
export function createTracing(options: { endpoint: string; serviceName: string; sampler: TraceSampler; ratio: number }): Tracing {
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new NodeTracerProvider({
    // OTEL_RESOURCE_ATTRIBUTES is honoured; the service's name is OTEL_SERVICE_NAME's (config.ts).
    resource: defaultResource().merge(detectResources({ detectors: [envDetector] })).merge(resourceFromAttributes({ 'service.name': options.serviceName })),
    sampler: samplerOf(options.sampler, options.ratio),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const propagator = new W3CTraceContextPropagator();
  // Sets the global tracer provider, the AsyncLocalStorage context manager and the propagator.
  provider.register({ propagator });
  const prisma = new PrismaInstrumentation({ enabled: false });
  prisma.setTracerProvider(provider);
  prisma.enable();
  const tracer = provider.getTracer('salesgraph');

  return {
    request(request, facts: RequestFacts, serve) {
      const parent: Context = propagator.extract(ROOT_CONTEXT, request.headers, headersGetter);
      const span = tracer.startSpan(
        request.method,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'url.path': pathOf(request.url), 'salesgraph.request_id': facts.requestId } },
        parent,
      );
      return context.with(trace.setSpan(parent, span), async () => {
        try {
          const response = await serve(request, facts);
          const template = routeTemplate(request.method, facts.route);
          if (template) span.updateName(`${request.method} ${template}`).setAttribute('http.route', template);
          span.setAttribute('http.response.status_code', response.status);
          if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          return response;
        } catch (error) {
          span.recordException(error as Error);
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      });
    },

    operation(document, operationName, run) {
      const operation = getOperationAST(document, operationName);
      const attributes: Attributes = operation ? { 'graphql.operation.type': operation.operation, ...(operation.name ? { 'graphql.operation.name': operation.name.value } : {}) } : {};
      // The REST routes' documents are anonymous: their first root field (`mutation upsertContact`) says what ran.
      const rootField = operation?.selectionSet.selections.find((s) => s.kind === Kind.FIELD);
      const label = operation?.name?.value ?? rootField?.name.value;
      const name = operation ? `${operation.operation}${label ? ` ${label}` : ''}` : 'graphql operation';
      return tracer.startActiveSpan(name, { attributes }, (span) => {
        const ended = (result: unknown) => {
          if (result && typeof result === 'object' && 'errors' in result && Array.isArray(result.errors) && result.errors.length > 0) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        };
        try {
          const result = run();
          if (result instanceof Promise) {
            return result.then(
              (value) => (ended(value), value),
              (error) => (span.recordException(error as Error), span.setStatus({ code: SpanStatusCode.ERROR }), span.end(), Promise.reject(error)),
            ) as typeof result;
          }
          ended(result);
          return result;
        } catch (error) {
          span.recordException(error as Error);
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
          throw error;
        }
      });
    },

    deliveryAttempt(attempt: DeliveryAttempt) {
      const url = new URL(attempt.endpointUrl);
      // A root: the request that queued the event ended long ago (and its trace id is not kept with the event).
      const span = tracer.startSpan(
        'webhook delivery attempt',
        {
          kind: SpanKind.CLIENT,
          root: true,
          startTime: attempt.startedAt,
          attributes: {
            'http.request.method': 'POST',
            'server.address': url.hostname,
            ...(url.port ? { 'server.port': Number(url.port) } : {}),
            ...(attempt.status === null ? {} : { 'http.response.status_code': attempt.status }),
            ...(attempt.error ? { 'error.type': attempt.error } : {}),
            'salesgraph.event_id': attempt.eventId,
            'salesgraph.delivery_id': attempt.deliveryId,
            'salesgraph.webhook.attempt': attempt.attempt,
            'salesgraph.webhook.outcome': attempt.outcome,
          },
        },
        ROOT_CONTEXT,
      );
      if (attempt.outcome !== 'succeeded') span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(attempt.endedAt);
    },

    flush: () => provider.forceFlush(),

    async shutdown() {
      prisma.disable();
      await provider.shutdown();
      // The globals go too: a test process may start tracing again.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
