// The part of autocannon's programmatic API the benchmark uses (the package ships no
// types; its README's "API" section is the source). Kept here rather than adding
// @types/autocannon for four fields.
declare module 'autocannon' {
  interface AutocannonRequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    [key: string]: unknown;
  }

  interface AutocannonRequest extends AutocannonRequestParams {
    /** Called before every request: returns the request to send. */
    setupRequest?: (request: AutocannonRequestParams, context: Record<string, unknown>) => AutocannonRequestParams;
    /** Called with every response; the body is a string. */
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }

  interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    requests?: AutocannonRequest[];
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    [percentile: string]: number;
  }

  interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  interface AutocannonInstance {
    stop(): void;
  }

  export default function autocannon(options: AutocannonOptions, callback: (error: Error | null, result: AutocannonResult) => void): AutocannonInstance;
  export type { AutocannonOptions, AutocannonRequest, AutocannonRequestParams, AutocannonResult, AutocannonInstance };
}
