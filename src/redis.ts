/**
 * What every Redis connection of the service shares (the rate limit's, the live tail's):
 * how it connects at start-up (within a deadline, its failure said with REDIS_URL's
 * password masked), and how it reconnects once running (backing off up to 2 s).
 */

const CONNECT_TIMEOUT_MS = 5000;
// Commands left unanswered by a Redis that hangs are bounded; past this they fail at once.
const MAX_PENDING = 10_000;

/** The wait before the `retries`-th reconnect: 50 ms, doubling, at most 2 s. */
export const reconnectDelay = (retries: number): number => Math.min(50 * 2 ** retries, 2000);

/**
 * `answer`, or a rejection after `ms`. node-redis's own command timeout stops counting
 * once the command is written, so it cannot tell a Redis that went silent.
 */
export function within<T>(ms: number, answer: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms.`)), ms);
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

/** `text` with REDIS_URL's password (as written and decoded) masked: messages are printed. */
function masked(url: string, text: string): string {
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    // not a URL: nothing of it to mask
  }
  const secrets = [password, password && decodeURIComponent(password)].filter(Boolean);
  return secrets.reduce((shown, secret) => shown.split(secret).join('***'), text);
}

/** Why the connection failed, said with REDIS_URL's password masked. */
export function redisError(url: string, error: unknown, what = 'does not answer'): Error {
  let shown = 'REDIS_URL';
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    shown = `REDIS_URL ${parsed.href}`;
  } catch {
    // not a URL: node-redis refused it, and the message names no part of it
  }
  const reason = error instanceof Error ? error.message || error.name : String(error);
  return new Error(`${shown} ${what}: ${masked(url, reason)}`);
}

/**
 * The options of a connection that commands are sent on: never queued while
 * disconnected (they fail at once), a bounded queue, and a reconnect that backs off once
 * `started()` (before that, a failure is final: the start-up fails).
 */
export function commandConnection(url: string, started: () => boolean) {
  return {
    url,
    disableOfflineQueue: true,
    commandsQueueMaxLength: MAX_PENDING,
    socket: { reconnectStrategy: (retries: number) => (started() ? reconnectDelay(retries) : false as const) },
  };
}

/**
 * Connects `client`, the whole handshake within 5 s (a Redis that accepts the connection
 * and says nothing fails too); on failure the client is destroyed and the error names
 * REDIS_URL with its password masked.
 */
export async function connectAtStart(url: string, client: { connect(): Promise<unknown>; destroy(): void }): Promise<void> {
  try {
    await within(CONNECT_TIMEOUT_MS, client.connect());
  } catch (error) {
    client.destroy();
    throw redisError(url, error);
  }
}
