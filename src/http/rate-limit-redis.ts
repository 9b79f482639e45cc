import { type CommandParser, createClient, defineScript } from '@redis/client';
import { commandConnection, connectAtStart, within } from '../redis.js';
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
  // Never queue a hit while disconnected: it fails at once and the request goes on. At
  // start-up a Redis that does not answer is an error; once running, it is retried.
  const client = createClient({ ...commandConnection(url, () => connected), scripts: { rateLimitHit: HIT } });
  // Connection errors reach the gate as failed hits, which it logs once per outage.
  client.on('error', () => {});
  await connectAtStart(url, client);
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
