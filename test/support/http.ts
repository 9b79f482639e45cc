// A minimal HTTP client with no vitest import, so scripts (scripts/fuzz.ts) can use it too.

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  /** The body as text, for reports. */
  text: string;
}

export async function send(url: string, method: string, options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  // Bytes, not a string: fetch would add `Content-Type: text/plain` to a string body that has none.
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : Buffer.from(body, 'utf8') });
  // An event stream never ends by itself: its first chunk (the opening comment) is its answer here.
  const text = response.headers.get('content-type')?.startsWith('text/event-stream') ? await firstChunk(response) : await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: the caller sees the text
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

async function firstChunk(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return new TextDecoder().decode(value);
}
