import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { createClient } from '@redis/client';

/** The Redis the tests use (TEST_REDIS_URL); every test keeps to keys and channels of its own. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** A password put in REDIS_URLs, which the service must never print. */
export const SECRET = 's3cret-in-the-url';

/** Whether Redis answers at REDIS_URL. */
async function redisAnswers(): Promise<boolean> {
  const client = createClient({ url: REDIS_URL, socket: { reconnectStrategy: false, connectTimeout: 3000 } });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.close();
    return true;
  } catch {
    return false;
  }
}

/** Without Redis the Redis tests are skipped, loudly, except under CI=true (as for PostgreSQL). */
export async function withRedis(what: string): Promise<boolean> {
  if (await redisAnswers()) return true;
  const banner = `Redis does not answer at ${REDIS_URL}: ${what} are SKIPPED (set TEST_REDIS_URL).`;
  if (process.env.CI === 'true') throw new Error(`${banner} CI=true: refusing to skip them.`);
  console.warn(`\n!! ${banner}\n`);
  return false;
}

/**
 * A TCP relay to Redis that the test can cut (and open again on the same port), or
 * stall (connections stay open, Redis's answers stop arriving).
 */
export async function redisRelay(): Promise<{ url: string; cut(): void; restore(): Promise<void>; stall(): void }> {
  const upstream = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  let server: Server;
  let stalled = false;
  const open = async (port: number) => {
    server = createServer((client) => {
      const to = connect(Number(upstream.port || 6379), upstream.hostname);
      for (const s of [client, to]) {
        sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => {
          sockets.delete(s);
          client.destroy();
          to.destroy();
        });
      }
      client.pipe(to);
      to.on('data', (d) => void (stalled || client.write(d)));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  const port = await open(0);
  return {
    // The default user takes any password on a Redis without one: the URL carries a secret that must never be printed.
    url: `redis://default:${SECRET}@127.0.0.1:${port}`,
    cut() {
      server.close();
      for (const s of sockets) s.destroy();
    },
    restore: async () => void (await open(port)),
    stall: () => void (stalled = true),
  };
}

/** A port on which nothing listens. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

