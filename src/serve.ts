import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { createApp } from './server.js';

export interface RunningServer {
  url: string;
  server: Server;
  /** Stops accepting, lets in-flight requests finish, then closes idle connections. */
  close(): Promise<void>;
}

export async function listen(database: Database, config: Pick<Config, 'HOST' | 'PORT' | 'RATE_LIMIT_PER_MINUTE'>): Promise<RunningServer> {
  const server = createServer(createApp(database, config));
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
