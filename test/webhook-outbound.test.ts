import { createHmac } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { once } from 'node:events';
import { type IncomingMessage, type RequestListener, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { threadId } from 'node:worker_threads';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { checkWebhookUrl, isBlockedAddress } from '../src/webhooks/address-guard.js';
import { attemptAll } from '../src/webhooks/attempts.js';
import { postWebhook, retryAfterSeconds } from '../src/webhooks/send.js';
import { newWebhookSecret, webhookSigner } from '../src/webhooks/signing.js';

// The outbound half of webhooks: signing, one HTTP attempt, and the network-safety checks.
// No database is involved, so it runs in one project only.

/** A local receiver that records what reached it. */
interface Receiver {
  url: string;
  port: number;
  requests: { req: IncomingMessage; body: string }[];
  connections: number;
  server: Server;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((done) => server.close(done));
    }),
  );
});

/** Starts a receiver on 127.0.0.1; `handle` answers once the request body has been read. */
async function receiver(handle: (res: ServerResponse, req: IncomingMessage) => void): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  const listener: RequestListener = (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      requests.push({ req, body });
      handle(res, req);
    });
  };
  const server = createServer(listener);
  servers.push(server);
  const rec: Receiver = { url: '', port: 0, requests, connections: 0, server };
  server.on('connection', () => (rec.connections += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  rec.port = (server.address() as AddressInfo).port;
  rec.url = `http://127.0.0.1:${rec.port}/hook`;
  return rec;
}

const open = { timeoutMs: 5000, allowPrivate: true };
const guarded = { timeoutMs: 5000, allowPrivate: false };

describe.runIf(process.env.TEST_PROVIDER !== 'postgresql')('webhooks: outbound', () => {
  describe('signing', () => {
    it('makes whsec_ secrets of 32 random bytes', () => {
      const secret = newWebhookSecret();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
      expect(newWebhookSecret()).not.toBe(secret);
    });

    it('signs HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed by the decoded secret', () => {
      const secret = newWebhookSecret();
      const at = new Date('2030-01-02T03:04:05.678Z');
      const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
      const expected = createHmac('sha256', key).update(`evt_1.1893553445.{"a":1}`).digest('base64');
      const sign = webhookSigner([secret]);
      expect(sign('evt_1', at, '{"a":1}')).toEqual({
        'webhook-id': 'evt_1',
        'webhook-timestamp': '1893553445',
        'webhook-signature': `v1,${expected}`,
      });
      // The same signer signs the next attempt as a new one.
      expect(sign('evt_2', at, '{"a":1}')['webhook-signature']).toBe(`v1,${createHmac('sha256', key).update(`evt_2.1893553445.{"a":1}`).digest('base64')}`);
    });
  });

  describe('postWebhook', () => {
    it('posts the body with its headers; a 2xx is ok, its answer captured; the signature verifies', async () => {
      const rec = await receiver((res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('thanks'));
      const secret = newWebhookSecret();
      const body = JSON.stringify({ id: 'evt_1', type: 'contact.created', note: 'héllo' });
      const result = await postWebhook(rec.url, body, webhookSigner([secret])('evt_1', new Date(), body), open);
      expect(result).toEqual({ ok: true, status: 200, body: 'thanks', error: null, retryAfterSeconds: null });
      expect(rec.requests).toHaveLength(1);
      const { req, body: received } = rec.requests[0]!;
      expect(req.method).toBe('POST');
      expect(req.url).toBe('/hook');
      expect(received).toBe(body);
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['user-agent']).toBe('Salesgraph-Webhooks/1');
      expect(req.headers['content-length']).toBe(String(Buffer.byteLength(body)));
      expect(req.headers['webhook-id']).toBe('evt_1');
      expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(new Webhook(secret).verify(received, signed(req))).toEqual(JSON.parse(body));
    });

    it('signs with both secrets during a rotation, and each verifies alone', async () => {
      const rec = await receiver((res) => res.writeHead(204).end());
      const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
      const body = '{"id":"evt_2"}';
      const result = await postWebhook(rec.url, body, webhookSigner([newSecret, oldSecret])('evt_2', new Date(), body), open);
      expect(result).toEqual({ ok: true, status: 204, body: '', error: null, retryAfterSeconds: null });
      const { req, body: received } = rec.requests[0]!;
      expect(signed(req)['webhook-signature']!.split(' ')).toHaveLength(2);
      expect(new Webhook(oldSecret).verify(received, signed(req))).toEqual({ id: 'evt_2' });
      expect(new Webhook(newSecret).verify(received, signed(req))).toEqual({ id: 'evt_2' });
      expect(() => new Webhook(newWebhookSecret()).verify(received, signed(req))).toThrow('No matching signature found');
    });

    it('keeps exactly the first 1,024 characters of a long answer', async () => {
      const rec = await receiver((res) => res.writeHead(500).end('x'.repeat(5 * 1024)));
      const result = await postWebhook(rec.url, '{}', {}, open);
      expect(result).toEqual({ ok: false, status: 500, body: 'x'.repeat(1024), error: null, retryAfterSeconds: null });
    });

    it('counts characters, not bytes, decoding UTF-8 split across chunks', async () => {
      const rec = await receiver((res) => {
        const bytes = Buffer.from('€'.repeat(1500));
        res.writeHead(400);
        res.write(bytes.subarray(0, 1001)); // ends inside a three-byte character
        res.end(bytes.subarray(1001));
      });
      const result = await postWebhook(rec.url, '{}', {}, open);
      expect(result.body).toBe('€'.repeat(1024));
    });

    it('cuts an endless answer after 1,024 characters and closes the connection', async () => {
      let closed!: Promise<unknown>;
      const rec = await receiver((res) => {
        closed = once(res, 'close');
        res.writeHead(200);
        const pump = () => {
          while (!res.destroyed && res.write('y'.repeat(512)));
        };
        res.on('drain', pump);
        pump();
      });
      const started = Date.now();
      const result = await postWebhook(rec.url, '{}', {}, open);
      expect(result).toEqual({ ok: true, status: 200, body: 'y'.repeat(1024), error: null, retryAfterSeconds: null });
      expect(Date.now() - started).toBeLessThan(2000); // long before the 5 s deadline
      await closed;
    });

    it('keeps an answer whose connection drops mid-body: its status arrived', async () => {
      const rec = await receiver((res) => {
        res.writeHead(200, { 'Content-Length': '100' });
        res.write('partial', () => res.socket!.destroy());
      });
      const result = await postWebhook(rec.url, '{}', {}, open);
      expect(result).toEqual({ ok: true, status: 200, body: 'partial', error: null, retryAfterSeconds: null });
    });

    it('never follows a redirect', async () => {
      const elsewhere = await receiver((res) => res.writeHead(200).end());
      const rec = await receiver((res) => res.writeHead(302, { Location: elsewhere.url }).end('moved'));
      const result = await postWebhook(rec.url, '{}', {}, open);
      expect(result).toEqual({ ok: false, status: 302, body: 'moved', error: 'redirect', retryAfterSeconds: null });
      expect(elsewhere.connections).toBe(0);
    });

    it('times out a receiver that never answers, within the deadline, closing the connection', async () => {
      let closed!: Promise<unknown>;
      const rec = await receiver((res) => (closed = once(res, 'close')));
      const started = Date.now();
      const result = await postWebhook(rec.url, '{}', {}, { timeoutMs: 300, allowPrivate: true });
      const elapsed = Date.now() - started;
      expect(result).toEqual({ ok: false, status: null, body: null, error: 'timeout', retryAfterSeconds: null });
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(800); // margin for a busy machine
      await closed;
    });

    it('times out an answer whose body stalls: the deadline covers the body', async () => {
      const rec = await receiver((res) => res.writeHead(200, { 'Content-Length': '100' }).write('partial'));
      const result = await postWebhook(rec.url, '{}', {}, { timeoutMs: 300, allowPrivate: true });
      expect(result).toEqual({ ok: false, status: null, body: null, error: 'timeout', retryAfterSeconds: null });
    });

    it('ends an attempt when the caller aborts, as a timeout', async () => {
      const rec = await receiver(() => {});
      const controller = new AbortController();
      const pending = postWebhook(rec.url, '{}', {}, { ...open, signal: controller.signal });
      await new Promise((arrived) => rec.server.once('request', arrived));
      controller.abort();
      expect((await pending).error).toBe('timeout');
      expect((await postWebhook(rec.url, '{}', {}, { ...open, signal: AbortSignal.abort() })).error).toBe('timeout');
    });

    it('reports transport failures as connection_failed: refused, TLS, DNS', async () => {
      const rec = await receiver((res) => res.end());
      const failed = { ok: false, status: null, body: null, error: 'connection_failed', retryAfterSeconds: null };
      expect(await postWebhook(`https://127.0.0.1:${rec.port}/`, '{}', {}, open)).toEqual(failed); // TLS to a plain server
      rec.server.closeAllConnections();
      rec.server.close();
      await once(rec.server, 'close');
      expect(await postWebhook(rec.url, '{}', {}, open)).toEqual(failed);
      expect(await postWebhook('http://nowhere.invalid/', '{}', {}, open)).toEqual(failed);
      expect(await postWebhook('http://nowhere.invalid/', '{}', {}, guarded)).toEqual(failed);
    });

    it('reads Retry-After of a 429 or 503 as seconds or an HTTP date', async () => {
      const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
      const rec = await receiver((res, req) => {
        const [status, retryAfter] = JSON.parse(req.headers['x-case'] as string) as [number, string];
        res.writeHead(status, { 'Retry-After': retryAfter }).end();
      });
      const post = async (status: number, retryAfter: string) =>
        (await postWebhook(rec.url, '{}', { 'X-Case': JSON.stringify([status, retryAfter]) }, open)).retryAfterSeconds;
      expect(await post(429, '120')).toBe(120);
      expect(await post(503, '7')).toBe(7);
      const fromDate = await post(429, inTwoMinutes);
      expect(fromDate).toBeGreaterThanOrEqual(118);
      expect(fromDate).toBeLessThanOrEqual(120);
      expect(await post(429, 'Wed, 21 Oct 2015 07:28:00 GMT')).toBe(0); // past: at once
      expect(await post(500, '120')).toBeNull(); // only 429 and 503 say when to come back
      expect(await post(429, 'soon')).toBeNull();
    });

    it('parses Retry-After strictly', () => {
      const now = Date.parse('2030-01-01T00:00:00Z');
      expect(retryAfterSeconds(' 30 ', now)).toBe(30);
      expect(retryAfterSeconds('Tue, 01 Jan 2030 00:01:30 GMT', now)).toBe(90);
      expect(retryAfterSeconds('-5', now)).toBeNull(); // Date.parse alone reads this as the year 2001
      expect(retryAfterSeconds('1.5', now)).toBeNull();
      expect(retryAfterSeconds(undefined, now)).toBeNull();
    });

    it('refuses a blocked IP literal before connecting', async () => {
      const rec = await receiver((res) => res.end());
      const result = await postWebhook(`http://127.0.0.1:${rec.port}/`, '{}', {}, guarded);
      expect(result).toEqual({ ok: false, status: null, body: null, error: 'blocked_address', retryAfterSeconds: null });
      expect(await postWebhook(`http://[::ffff:127.0.0.1]:${rec.port}/`, '{}', {}, guarded)).toMatchObject({ error: 'blocked_address' });
      expect(rec.connections).toBe(0);
    });

    it('refuses a name resolving to a blocked address at connect time', async () => {
      const rec = await receiver((res) => res.end());
      const result = await postWebhook(`http://localhost:${rec.port}/`, '{}', {}, guarded);
      expect(result).toEqual({ ok: false, status: null, body: null, error: 'blocked_address', retryAfterSeconds: null });
      expect(rec.connections).toBe(0);
      // The same name is reached when private networks are allowed.
      expect(await postWebhook(`http://localhost:${rec.port}/`, '{}', {}, open)).toMatchObject({ ok: true, status: 200 });
    });
  });

  describe('isBlockedAddress', () => {
    const blocked = ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '::1', '::', 'fe80::1', 'fc00::1', 'fd12::1', 'ff02::1', '224.0.0.1', '::ffff:127.0.0.1', '100.64.0.1', '::127.0.0.1', '::7f00:1'];
    it.each(blocked)('blocks %s', (ip) => expect(isBlockedAddress(ip)).toBe(true));
    it.each(['93.184.216.34', '2606:4700::1111', '::ffff:93.184.216.34'])('allows %s', (ip) => expect(isBlockedAddress(ip)).toBe(false));
    it.each(['', 'example.com', '2130706433', '1.2.3', '999.1.1.1'])('blocks the non-address %j', (ip) => expect(isBlockedAddress(ip)).toBe(true));
  });

  describe('checkWebhookUrl', () => {
    const blockedMessage = 'The url must not point to a private, loopback, link-local or reserved address.';
    const badUrl = 'The url must be an absolute http or https URL.';
    /** A lookup answering from a table; names not in it do not resolve. */
    const lookupFrom = (table: Record<string, string[]>) => {
      const lookup = async (host: string, options: { all: true }): Promise<LookupAddress[]> => {
        expect(options).toEqual({ all: true });
        const addresses = table[host];
        if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
        return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      };
      return lookup;
    };
    const lookup = lookupFrom({
      localhost: ['127.0.0.1', '::1'],
      'example.com': ['93.184.216.34'],
      'mixed.example': ['93.184.216.34', '10.0.0.1', '2606:4700::1111'],
    });
    const check = (url: string) => checkWebhookUrl(url, { allowPrivate: false }, lookup);

    it.each([
      ['http://localhost/', blockedMessage],
      ['http://[::1]/', blockedMessage],
      ['http://[::ffff:127.0.0.1]/', blockedMessage],
      ['http://2130706433/', blockedMessage],
      ['http://0177.0.0.1/', blockedMessage],
      ['http://0x7f.1/', blockedMessage],
      ['http://169.254.169.254/latest', blockedMessage],
      ['http://mixed.example/', blockedMessage],
      ['http://nowhere.example/', 'The url host could not be resolved.'],
      ['ftp://example.com/', badUrl],
      ['not a url', badUrl],
      ['/relative/path', badUrl],
      ['http://', badUrl],
      ['http://user:pw@example.com/', 'The url must not contain user information.'],
      ['http://user@example.com/', 'The url must not contain user information.'],
      [`https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`, 'The url must not be longer than 2048 characters.'],
      ['https://example.com/hook', null],
      [`https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`, null],
    ])('%s → %s', async (url, expected) => {
      expect(await check(url)).toBe(expected);
    });

    it('resolves nothing when private networks are allowed, and still checks the shape', async () => {
      const noLookup = async (): Promise<LookupAddress[]> => {
        throw new Error('must not resolve');
      };
      expect(await checkWebhookUrl('http://127.0.0.1:1/', { allowPrivate: true }, noLookup)).toBeNull();
      expect(await checkWebhookUrl('http://private.example/', { allowPrivate: true }, noLookup)).toBeNull();
      expect(await checkWebhookUrl('http://u@127.0.0.1/', { allowPrivate: true }, noLookup)).toBe('The url must not contain user information.');
    });
  });
  describe('attemptAll (the attempt thread)', () => {
    it("signs and sends one endpoint's batch on a thread of its own, each result in its delivery's place", async () => {
      // The receiver answers each request with its webhook-id, so a result out of place shows.
      const rec = await receiver((res, req) => res.writeHead(req.headers['webhook-id'] === 'evt_b' ? 503 : 200, { 'Retry-After': '7' }).end(String(req.headers['webhook-id'])));
      const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
      const at = Date.now() - 1_500;
      const deliveries = ['evt_a', 'evt_b', 'evt_c'].map((eventId) => ({ eventId, payload: JSON.stringify({ id: eventId }) }));
      const { results, threadId: attemptedOn } = await attemptAll({ url: rec.url, secrets: [newSecret, oldSecret], at, deliveries, options: open });
      expect(attemptedOn).not.toBe(threadId);
      expect(results).toEqual([
        { ok: true, status: 200, body: 'evt_a', error: null, retryAfterSeconds: null },
        { ok: false, status: 503, body: 'evt_b', error: null, retryAfterSeconds: 7 },
        { ok: true, status: 200, body: 'evt_c', error: null, retryAfterSeconds: null },
      ]);
      expect(rec.requests.map((r) => r.body).sort()).toEqual(deliveries.map((d) => d.payload));
      for (const { req, body } of rec.requests) {
        // One instant for the batch, the round's: in Unix seconds; every delivery signed by both secrets, each verifying alone.
        expect(req.headers['webhook-timestamp']).toBe(String(Math.floor(at / 1000)));
        expect(signed(req)['webhook-signature']!.split(' ')).toHaveLength(2);
        for (const secret of [oldSecret, newSecret]) expect(new Webhook(secret).verify(body, signed(req))).toEqual({ id: req.headers['webhook-id'] });
        expect(() => new Webhook(newWebhookSecret()).verify(body, signed(req))).toThrow('No matching signature found');
      }
    });

    it('applies the address rules on the thread: a loopback target is refused unless private networks are allowed', async () => {
      const rec = await receiver((res) => res.writeHead(204).end());
      const batch = { url: rec.url, secrets: [newWebhookSecret()], at: Date.now(), deliveries: [{ eventId: 'evt_1', payload: '{}' }] };
      expect((await attemptAll({ ...batch, options: guarded })).results).toEqual([{ ok: false, status: null, body: null, error: 'blocked_address', retryAfterSeconds: null }]);
      expect(rec.requests).toHaveLength(0);
      expect((await attemptAll({ ...batch, options: open })).results).toEqual([{ ok: true, status: 204, body: '', error: null, retryAfterSeconds: null }]);
    });
  });
});

/** The Standard Webhooks headers a receiver got, in the shape `Webhook#verify` takes. */
function signed(req: IncomingMessage): Record<string, string> {
  const names = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
  return Object.fromEntries(names.map((name) => [name, String(req.headers[name])]));
}
