import pino from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// One JSON object per line, `level` as a word and `time` in ISO 8601, nothing added per process.
const options: pino.LoggerOptions = {
  base: null,
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
};
/** Request lines go to stdout, errors to stderr, so an operator can route them apart. */
const access = pino(options, process.stdout);
const errors = pino(options, process.stderr);

/** The process's level (LOG_LEVEL): `warn` and above keep errors and drop the access log. */
export function setLogLevel(level: LogLevel): void {
  access.level = level;
  errors.level = level;
}

/**
 * An error line: no keys, no stack traces, no SQL (database errors are logged by
 * name and code only; their messages can quote SQL).
 */
export function logError(requestId: string | null, error: unknown, where: string): void {
  const e = error as { name?: string; message?: string; code?: unknown; originalError?: { name?: string; message?: string; code?: unknown } };
  const origin = e?.originalError ?? e;
  const name = origin?.name ?? 'Error';
  const fromDatabase = name.startsWith('Prisma') || typeof origin?.code === 'string';
  errors.error({
    request_id: requestId,
    where,
    error: name,
    code: typeof origin?.code === 'string' ? origin.code : undefined,
    message: fromDatabase ? undefined : origin?.message?.slice(0, 200),
  });
}

/**
 * The access log: one line per request (method, route template, status, duration,
 * request id, workspace, client address); never a key, a query string or a body.
 */
export function logRequest(line: { requestId: string; method: string; route: string; status: number; durationMs: number; workspaceId?: string; clientAddress?: string }): void {
  access.info({
    request_id: line.requestId,
    method: line.method,
    route: line.route,
    status: line.status,
    duration_ms: Math.round(line.durationMs * 10) / 10,
    workspace_id: line.workspaceId,
    client_address: line.clientAddress,
  });
}
