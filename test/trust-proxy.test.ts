import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { logged } from './support/access-log.js';
import { type TestApp, send, startApp } from './support/app.js';

// A token of the right shape that names no link: the public gate counts it, then answers 404 after one lookup.
const UNKNOWN_LINK = '/api/v1/public/payment-links/no-such-link';

/** A public GET, as sent through a proxy that wrote `headers`: its status and the limit's remaining count. */
async function publicGet(app: TestApp, headers: Record<string, string> = {}, path = UNKNOWN_LINK): Promise<[number, string | null]> {
  const reply = await send(`${app.url}${path}`, 'GET', { headers });
  return [reply.status, reply.headers.get('x-ratelimit-remaining')];
}

/** A service whose public limit is `limit` a minute, its own (each test counts from zero), with `trustProxy` as TRUST_PROXY; the access log on. */
const serviceWith = (limit: number, trustProxy: string[] = []) => startApp({ server: { PUBLIC_RATE_LIMIT_PER_MINUTE: limit, TRUST_PROXY: trustProxy, LOG_LEVEL: 'info' } });

describe('TRUST_PROXY', () => {
  it('is read as addresses and CIDRs, IPv4 and IPv6; anything else stops the start naming the entry', () => {
    expect(loadConfig({}).TRUST_PROXY).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.1, 10.0.0.0/8,::1 , fd00::/8,' }).TRUST_PROXY).toEqual(['10.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8']);
    for (const bad of ['10.0.0.0/33', 'fd00::/129', 'localhost', '127.1', '10.0.0.1/8/8', '10.0.0.0/-1']) {
      expect(() => loadConfig({ TRUST_PROXY: `127.0.0.1,${bad}` })).toThrow(`Invalid configuration: TRUST_PROXY: "${bad}" is neither an IP address nor a CIDR`);
    }
  });

  it('unset: what a client forwards changes nothing; the limit counts the real peer, and the access log shows it', async () => {
    const app = await serviceWith(3);
    try {
      const lines = await logged(async () => {
        const answers = [
          await publicGet(app, { 'X-Forwarded-For': '203.0.113.1' }),
          await publicGet(app, { 'X-Forwarded-For': '203.0.113.2' }),
          await publicGet(app, { Forwarded: 'for=203.0.113.3' }),
          await publicGet(app, { 'X-Forwarded-For': '203.0.113.4', Forwarded: 'for=203.0.113.4' }),
        ];
        expect(answers).toEqual([[404, '2'], [404, '1'], [404, '0'], [429, '0']]);
      });
      expect(lines.map((line) => [line.route, line.status, line.client_address])).toEqual([
        ['GET /api/v1/public/payment-links/{publicToken}', 404, '127.0.0.1'],
        ['GET /api/v1/public/payment-links/{publicToken}', 404, '127.0.0.1'],
        ['GET /api/v1/public/payment-links/{publicToken}', 404, '127.0.0.1'],
        ['GET /api/v1/public/payment-links/{publicToken}', 429, '127.0.0.1'],
      ]);
    } finally {
      await app.close();
    }
  });

  it('counts every public request, 404s included: a public path that matches no route counts too', async () => {
    const app = await serviceWith(4);
    try {
      expect([
        await publicGet(app, {}, '/api/v1/public/no-such-route'),
        await publicGet(app, {}, '/api/v1/provider-webhooks/acct/extra'),
        await publicGet(app, {}, '/pay/no/such/page/here'),
        await publicGet(app, {}, '/pay/assets/no-such-file.css'),
      ]).toEqual([[404, null], [404, null], [404, null], [404, null]]);
      // The four before it were counted: this one is the fifth of four.
      expect(await publicGet(app)).toEqual([429, '0']);
    } finally {
      await app.close();
    }
  });

  it('set to the peer: each forwarded client has its own limit; of a chain, the right-most address not trusted is the client', async () => {
    const app = await serviceWith(2, ['127.0.0.1', '10.0.0.0/8']);
    try {
      const lines = await logged(async () => {
        expect(await publicGet(app, { 'X-Forwarded-For': '203.0.113.1' })).toEqual([404, '1']);
        expect(await publicGet(app, { 'X-Forwarded-For': '203.0.113.1' })).toEqual([404, '0']);
        expect(await publicGet(app, { 'X-Forwarded-For': '203.0.113.1' })).toEqual([429, '0']);
        // Another client behind the same proxy has a limit of its own.
        expect(await publicGet(app, { 'X-Forwarded-For': '203.0.113.2' })).toEqual([404, '1']);
        // A client that writes X-Forwarded-For itself: the proxy appends the address it saw, which is the one counted.
        expect(await publicGet(app, { 'X-Forwarded-For': '198.51.100.7, 203.0.113.1' })).toEqual([429, '0']);
        // Trusted hops (10.0.0.0/8: an inner proxy) are skipped, walking from the right.
        expect(await publicGet(app, { 'X-Forwarded-For': '198.51.100.8, 203.0.113.2, 10.1.2.3' })).toEqual([404, '0']);
        expect(await publicGet(app, { 'X-Forwarded-For': '203.0.113.2' })).toEqual([429, '0']);
        // RFC 7239: quoted IPv6 with a port, an IPv4 with a port, other parameters beside `for`.
        expect(await publicGet(app, { Forwarded: 'for=198.51.100.9;proto=https, for="[2001:db8:cafe::17]:4711";by=10.0.0.1' })).toEqual([404, '1']);
        expect(await publicGet(app, { Forwarded: 'for="192.0.2.60:8080";proto=http;host=example.com' })).toEqual([404, '1']);
        expect(await publicGet(app, { Forwarded: 'for=192.0.2.60' })).toEqual([404, '0']);
        // `Forwarded` is read before `X-Forwarded-For`.
        expect(await publicGet(app, { Forwarded: 'for=192.0.2.60', 'X-Forwarded-For': '203.0.113.99' })).toEqual([429, '0']);
        // A hop that is no address (`unknown`, garbage) ends the walk: the trusted hop before it is the client.
        expect(await publicGet(app, { 'X-Forwarded-For': '203.0.113.50, not-an-address' })).toEqual([404, '1']);
        expect(await publicGet(app, { Forwarded: 'for=unknown' })).toEqual([404, '0']);
      });
      expect(lines.map((line) => line.client_address)).toEqual([
        '203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2', '203.0.113.1', '203.0.113.2', '203.0.113.2',
        '2001:db8:cafe::17', '192.0.2.60', '192.0.2.60', '192.0.2.60', '127.0.0.1', '127.0.0.1',
      ]);
    } finally {
      await app.close();
    }
  });

  it('set to other addresses: a peer not listed is the client, whatever it forwards', async () => {
    const app = await serviceWith(1, ['10.0.0.0/8', '::1']);
    try {
      expect(await publicGet(app, { 'X-Forwarded-For': '203.0.113.1' })).toEqual([404, '0']);
      expect(await publicGet(app, { 'X-Forwarded-For': '203.0.113.2' })).toEqual([429, '0']);
    } finally {
      await app.close();
    }
  });
});
