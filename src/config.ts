import { z } from 'zod';
import { LOG_LEVELS } from './log.js';
import { parseSecretKeys } from './payments/secrets.js';
import { invalidProxyEntries } from './http/client-address.js';
import { TRACE_SAMPLERS } from './tracing/interface.js';

const flag = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

/**
 * Comma-separated exact origins (`http://localhost:5173`), compared as browsers send
 * them: lower case, no path, no trailing slash, no default port. Anything else would
 * silently never match, so it is refused at start-up.
 */
const origins = z
  .string()
  .default('')
  .transform((text, ctx) => {
    const list = text.split(',').map((s) => s.trim()).filter(Boolean);
    for (const entry of list) {
      let origin: string | undefined;
      try {
        const url = new URL(entry);
        // No wildcards: a browser never sends one, and each allowed origin is meant to be named.
        if ((url.protocol === 'http:' || url.protocol === 'https:') && !entry.includes('*')) origin = url.origin;
      } catch {
        // not a URL at all
      }
      if (origin !== entry) {
        ctx.addIssue({ code: 'custom', message: `"${entry}" is not an origin: write scheme://host[:port] as a browser sends it (http or https, lower case, no path or trailing slash, no default port)${origin ? `, e.g. ${origin}` : ''}` });
      }
    }
    return [...new Set(list)];
  });

/**
 * Comma-separated addresses and CIDRs of the proxies whose `Forwarded` / `X-Forwarded-For`
 * are believed (API.md section 5). An entry that is neither would trust nobody, or the
 * wrong peers, without a word: refused at start-up.
 */
const trustedProxies = z
  .string()
  .default('')
  .transform((text, ctx) => {
    const list = text.split(',').map((s) => s.trim()).filter(Boolean);
    for (const entry of invalidProxyEntries(list)) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is neither an IP address nor a CIDR (write e.g. 10.0.0.1, 10.0.0.0/8, ::1 or fd00::/8)` });
    }
    return list;
  });

/** Comma-separated seconds between a delivery's failed attempts (decimals allowed, for tests). */
const retrySchedule = z
  .string()
  .default('5,300,1800,7200,18000,36000,36000')
  .transform((text, ctx) => {
    const delays = text.split(',').map((s) => Number(s.trim()));
    if (delays.length === 0 || delays.some((d) => !Number.isFinite(d) || d < 0 || d > 7 * 86_400)) {
      ctx.addIssue({ code: 'custom', message: 'write comma-separated delays in seconds, e.g. 5,300,1800' });
    }
    return delays;
  });

/** Every environment variable the service reads (README's "Running in production" table lists each). */
export const EnvSchema = z.object({
  DATABASE_URL: z.string().optional(),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  // The public checkout routes' limit per client address (API.md section 7); 0 disables it.
  PUBLIC_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  // A checkout still pending this long is canceled and gives its coupon redemption back.
  CHECKOUT_EXPIRY_MINUTES: z.coerce.number().int().min(1).max(10_080).default(30),
  // How long a deleted record stays in the trash (API.md section 12) before the background work purges it.
  TRASH_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  // Set: the rate limit is counted in Redis, shared by every process that uses the same server and prefix,
  // and live events reach every process through Redis pub/sub (instead of LISTEN/NOTIFY or the embedded database's poll).
  REDIS_URL: z
    .string()
    .refine((url) => /^rediss?:\/\//.test(url), 'write redis://[[user]:password@]host[:port][/db] (or rediss:// for TLS)')
    .optional(),
  RATE_LIMIT_REDIS_PREFIX: z.string().min(1).default('salesgraph:rl:'),
  // With REDIS_URL: the pub/sub channel of committed events' ids (processes that share it see each other's writes live),
  // and how often the log is read besides, for what a lost publish left unsaid (a crash between a commit and its publish, an outage).
  EVENTS_REDIS_CHANNEL: z.string().min(1).default('salesgraph:events'),
  EVENTS_REDIS_SAFETY_READ_SECONDS: z.coerce.number().positive().max(3600).default(2),
  // Processes serving the one port; 1 is a single process, more run a cluster primary and that many workers.
  WEB_CONCURRENCY: z.coerce.number().int().min(1).default(1),
  // Deployments that migrate as a separate step set this to false.
  MIGRATE_ON_START: flag.default(true),
  // Open connections at once; more are refused at accept. Slow or stalled clients are cut off by the timeouts.
  MAX_CONNECTIONS: z.coerce.number().int().min(1).default(1000),
  HEADERS_TIMEOUT_SECONDS: z.coerce.number().min(1).default(10),
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().min(1).default(30),
  KEEP_ALIVE_TIMEOUT_SECONDS: z.coerce.number().min(1).default(5),
  // After SIGTERM, /readyz answers 503 and new connections are still served this long, so that
  // a load balancer sees the 503 first; at least the keep-alive timeout, so that no kept-alive
  // connection is still open (and perhaps in use) when the server stops accepting.
  DRAIN_DELAY_SECONDS: z.coerce.number().min(0).max(300).default(5),
  // info: an access-log line per request on stdout, errors on stderr; warn or error: errors only.
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  // The proxies in front of the service, whose forwarded client address is believed; none by default.
  TRUST_PROXY: trustedProxies,
  // Set: GET /metrics answers with `Authorization: Bearer <METRICS_TOKEN>`, and the process measures; unset: 404, nothing measured.
  METRICS_TOKEN: z.string().min(16, 'use at least 16 characters (a random token, e.g. openssl rand -hex 32)').optional(),
  // Set: each serving process sends OpenTelemetry traces over OTLP/HTTP (JSON) to <endpoint>/v1/traces; unset: no tracing code is loaded.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, error: 'write the collector\'s base URL, e.g. http://localhost:4318' }).optional(),
  // The traces' service.name.
  OTEL_SERVICE_NAME: z.string().min(1).default('salesgraph'),
  // Which traces are kept, as OpenTelemetry's SDKs read these two (docs/decisions.md); ARG: traceidratio's ratio.
  OTEL_TRACES_SAMPLER: z.enum(TRACE_SAMPLERS).default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  // Browser origins allowed to call the API (CORS); none by default.
  CORS_ORIGINS: origins,
  // Events older than this are purged (in small batches, once an hour).
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  // Live updates (API.md section 10): open event streams per key (REST streams and subscriptions together, per process),
  // and the events a stream's reader may fall behind before it is dropped.
  STREAMS_PER_KEY: z.coerce.number().int().min(1).default(20),
  STREAM_BUFFER_EVENTS: z.coerce.number().int().min(1).default(1000),
  // Webhook deliveries (API.md section 6).
  WEBHOOKS_DELIVER: flag.default(true),
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(10),
  WEBHOOK_RETRY_SCHEDULE: retrySchedule,
  WEBHOOK_DISABLE_AFTER_FAILURES: z.coerce.number().int().min(1).default(100),
  // Development and tests: let endpoints point at loopback and private addresses.
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag.default(false),
  // Payment providers (API.md section 11). Stored credentials are sealed under the first of these 32-byte keys (base64 or hex,
  // comma-separated; any of them opens); unset, one key is kept in SECRETS_KEY_FILE, made on first need (mode 0600).
  SECRETS_KEY: z
    .string()
    .refine((list) => {
      try {
        return parseSecretKeys(list).length > 0;
      } catch {
        return false;
      }
    }, 'write one or more comma-separated 32-byte keys as base64 or 64 hex digits (e.g. openssl rand -base64 32)')
    .optional(),
  SECRETS_KEY_FILE: z.string().min(1).default('./data/secrets.key'),
  // The origin providers are given for webhooks and return pages; set, accounts register their webhook endpoint themselves.
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/, error: 'write the service\'s public origin, e.g. https://pay.example.com' }).transform((url) => url.replace(/\/+$/, '')).optional(),
  PROVIDER_TIMEOUT_SECONDS: z.coerce.number().positive().max(120).default(15),
  // A checkout with no word from its provider this long after it began is looked up there, and again as often while it stays pending.
  PROVIDER_RECONCILE_SECONDS: z.coerce.number().positive().max(86_400).default(300),
  // Test doubles: Stripe's API origin, and Asaas's API base (with /v3; default by each account's environment).
  STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).optional(),
  ASAAS_API_BASE: z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, '')).optional(),
  // Days from today (in São Paulo) to an Asaas payment's due date.
  ASAAS_DUE_DAYS: z.coerce.number().int().min(0).max(365).default(3),
});

export type Config = z.infer<typeof EnvSchema>;

/** The process environment, parsed once into one typed object. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse({ ...env, DATABASE_URL: env.DATABASE_URL || undefined, REDIS_URL: env.REDIS_URL || undefined, METRICS_TOKEN: env.METRICS_TOKEN || undefined, OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined, OTEL_SERVICE_NAME: env.OTEL_SERVICE_NAME || undefined, OTEL_TRACES_SAMPLER: env.OTEL_TRACES_SAMPLER || undefined, OTEL_TRACES_SAMPLER_ARG: env.OTEL_TRACES_SAMPLER_ARG || undefined, SECRETS_KEY: env.SECRETS_KEY || undefined, PUBLIC_BASE_URL: env.PUBLIC_BASE_URL || undefined, STRIPE_API_BASE: env.STRIPE_API_BASE || undefined, ASAAS_API_BASE: env.ASAAS_API_BASE || undefined });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  return parsed.data;
}
