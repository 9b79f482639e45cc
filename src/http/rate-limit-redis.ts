import { type CommandParser, createClient, defineScript } from '@redis/client';
import { type RateLimitStore, WINDOW_MS, decide } from './rate-limit.js';

/**
 * One atomic round trip per request: count it, start the window's clock on its first
 * hit (or on a count left without one, so no key can live forever), and say how long
 * the window has left.
 */
const HIT = defineScript({
  NUMBER_OF_KEYS: 1,
  SCRIPT: `local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }`,
  parseCommand(parser: CommandParser, key: string, windowMs: number) {
    parser.pushKey(key);
    parser.push(String(windowMs));
  },
  transformReply: (reply: unknown) => {
    const [count, msLeft] = reply as [number, number];
    return { count, msLeft };
  },
});

// A Redis that stops answering must not hold requests: after this they pass uncounted.
const ANSWER_TIMEOUT_MS = 1000;
// Hits left unanswered by a Redis that hangs are bounded too; past this they fail at once.
const MAX_PENDING = 10_000;
const CONNECT_TIMEOUT_MS = 5000;
const reconnectDelay = (retries: number) => Math.min(50 * 2 ** retries, 2000);

/**
 * `answer`, or a rejection after `ms`. node-redis's own command timeout stops counting
 * once the command is written, so it cannot tell a Redis that went silent.
 */
function within<T>(ms: number, answer: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms.`)), ms);
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

/** Why the connection failed, said with REDIS_URL's password masked: the message is printed. */
function startupError(url: string, error: unknown): Error {
  let shown = 'REDIS_URL';
  let password = '';
  try {
    const parsed = new URL(url);
    password = parsed.password;
    if (password) parsed.password = '***';
    shown = `REDIS_URL ${parsed.href}`;
  } catch {
    // not a URL: node-redis refused it, and the message names no part of it
  }
  const reason = error instanceof Error ? error.message || error.name : String(error);
  const secrets = [password, password && decodeURIComponent(password)].filter(Boolean);
  return new Error(`${shown} does not answer: ${secrets.reduce((text, secret) => text.split(secret).join('***'), reason)}`);
}

export interface RedisStoreOptions {
  url: string;
  /** Prepended to every key (RATE_LIMIT_REDIS_PREFIX), so deployments and tests sharing a server stay apart. */
  prefix: string;
  limit: number;
}

/**
 * Connects to Redis and counts there. Rejects, with REDIS_URL's password masked, when
 * Redis does not answer at start-up; once running, a lost connection is retried in the
 * background and hits reject meanwhile (the gate lets those requests through).
 */
export async function connectRedisStore({ url, prefix, limit }: RedisStoreOptions): Promise<RateLimitStore> {
  let connected = false;
  const client = createClient({
    url,
    scripts: { rateLimitHit: HIT },
    // Never queue a hit while disconnected: it fails at once and the request goes on.
    disableOfflineQueue: true,
    commandsQueueMaxLength: MAX_PENDING,
    // At start-up a Redis that does not answer is an error; once running, it is retried.
    socket: { reconnectStrategy: (retries) => (connected ? reconnectDelay(retries) : false) },
  });
  // Connection errors reach the gate as failed hits, which it logs once per outage.
  client.on('error', () => {});
  try {
    // The whole handshake is timed: a Redis that accepts the connection and says nothing fails too.
    await within(CONNECT_TIMEOUT_MS, client.connect());
  } catch (error) {
    client.destroy();
    throw startupError(url, error);
  }
  connected = true;
  return {
    limit,
    async hit(key, keyLimit = limit) {
      const { count, msLeft } = await within(ANSWER_TIMEOUT_MS, client.rateLimitHit(prefix + key, WINDOW_MS));
      return decide(keyLimit, count, msLeft);
    },
    async ping() {
      await within(ANSWER_TIMEOUT_MS, client.ping());
    },
    // Closed once the server has drained, so no hit waits; a graceful QUIT would wait on a silent Redis.
    async close() {
      connected = false;
      client.destroy();
    },
  };
}
