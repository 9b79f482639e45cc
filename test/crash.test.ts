import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Reply, send } from './support/app.js';
import { freshDatabase } from './support/fresh-database.js';
import { startProcess } from './support/process.js';

// Crash safety: the service as a real process under a write load, killed with
// SIGKILL mid-load (twice), restarted on the same database each time. Every write
// it acknowledged (201) must be there exactly as acknowledged, and no record may be
// half-written: a contact without the companies it was created with, a payment link
// without its products, an event without its effect on the transaction's status.

const LOOPS = 4;
/** Acknowledged writes per round before the kill. */
const KILL_AFTER = 40;

let db: Awaited<ReturnType<typeof freshDatabase>>;
let running: { child: ChildProcess; url: string } | undefined;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  if (running && running.child.exitCode === null && running.child.signalCode === null) {
    const exited = once(running.child, 'exit');
    killHard(running.child);
    await exited;
  }
  await db?.drop();
});

async function start(): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const started = await startProcess({ DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0' });
  running = started;
  return started;
}

/** The processes whose parent is `pid` (Linux: /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * SIGKILL to the service and anything it started (killed by pid: SIGKILL cannot be
 * relayed by a parent that is killed first).
 */
function killHard(child: ChildProcess) {
  const victims: number[] = [];
  const collect = (pid: number) => childrenOf(pid).forEach((c) => (collect(c), victims.push(c)));
  collect(child.pid!);
  for (const pid of victims.length ? victims : [child.pid!]) process.kill(pid, 'SIGKILL');
}

interface Fixtures {
  companyIds: string[];
  productIds: string[];
  accountId: string;
  linkId: string;
}

/** What the crashed process acknowledged: each 201's body, by kind. */
interface Acknowledged {
  contacts: any[];
  links: any[];
  transactions: any[];
  /** Events with their transaction's id. */
  events: { transactionId: string; event: any }[];
}

const sorted = (ids: string[]) => [...ids].sort();

describe('the service, killed with SIGKILL under a write load', () => {
  it('keeps every acknowledged write, whole, across two crashes', { timeout: 90_000 }, async () => {
    let server = await start();
    const key = /\b(sg_[0-9A-Za-z]{32,})\b/.exec(server.output())?.[1];
    expect(key).toBeDefined();
    const call = (method: string, path: string, body?: unknown) =>
      send(`${server.url}${path.startsWith('/graphql') ? '' : '/api/v1'}${path}`, method, { ...(body === undefined ? {} : { body }), headers: { 'X-Api-Key': key! } });
    const must = async (method: string, path: string, body?: unknown) => {
      const reply = await call(method, path, body);
      expect([method, path, reply.status]).toEqual([method, path, 201]);
      return reply.body;
    };

    const companies = [await must('POST', '/companies', { name: 'Acme' }), await must('POST', '/companies', { name: 'Globex' })];
    const products = [
      await must('POST', '/products', { name: 'Plan', type: 'service', price: 12.5, currency: 'USD', unit: 'month' }),
      await must('POST', '/products', { name: 'Setup', type: 'service', price: 99, currency: 'USD', unit: 'unit' }),
    ];
    const account = await must('POST', '/payment-provider-accounts', { name: 'Stripe', provider: 'test' });
    const link = await must('POST', '/payment-links', { name: 'Checkout', payment_provider_account_id: account.id, product_ids: products.map((p) => p.id) });
    const fixtures: Fixtures = { companyIds: companies.map((c) => c.id), productIds: products.map((p) => p.id), accountId: account.id, linkId: link.id };
    const acknowledged: Acknowledged = { contacts: [], links: [], transactions: [], events: [] };

    for (const round of [1, 2]) {
      // The load: LOOPS writers, each creating contacts (with companies), transactions
      // (with two events) and payment links (with products) until its connection dies.
      let acks = 0;
      let killed = false;
      const exited = once(server.child, 'exit');
      const ack = () => {
        acks += 1;
        if (acks === KILL_AFTER && !killed) {
          killed = true;
          killHard(server.child);
        }
      };
      const writer = async (loop: number) => {
        for (let i = 0; ; i += 1) {
          const tag = `r${round}-l${loop}-${i}`;
          try {
            const contact = await call('POST', '/contacts', { first_name: `Crash ${tag}`, email: `${tag}@example.com`, company_ids: fixtures.companyIds });
            if (contact.status !== 201) throw new Error(`contact: ${contact.status} ${JSON.stringify(contact.body)}`);
            acknowledged.contacts.push(contact.body);
            ack();
            const transaction = await call('POST', '/payment-transactions', { payment_link_id: fixtures.linkId, provider_reference: `pi_${tag}`, amount: 25, currency: 'USD' });
            if (transaction.status !== 201) throw new Error(`transaction: ${transaction.status} ${JSON.stringify(transaction.body)}`);
            acknowledged.transactions.push(transaction.body);
            ack();
            for (const [n, status] of ['processing', 'paid'].entries()) {
              const event = await call('POST', `/payment-transactions/${transaction.body.id}/events`, {
                type: `payment.${status}`,
                status,
                provider_reference: `evt_${tag}_${n}`,
                occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
              });
              if (event.status !== 201) throw new Error(`event: ${event.status} ${JSON.stringify(event.body)}`);
              acknowledged.events.push({ transactionId: transaction.body.id, event: event.body });
              ack();
            }
            const created = await call('POST', '/payment-links', { name: `Link ${tag}`, payment_provider_account_id: fixtures.accountId, product_ids: fixtures.productIds });
            if (created.status !== 201) throw new Error(`link: ${created.status} ${JSON.stringify(created.body)}`);
            acknowledged.links.push(created.body);
            ack();
          } catch (error) {
            // After the kill, a request fails on its dead connection: the writer stops.
            // Before it, any failure is the test's to report.
            if (killed) return;
            throw error;
          }
        }
      };
      await Promise.all(Array.from({ length: LOOPS }, (_, loop) => writer(loop)));
      const [code, signal] = await exited;
      expect([round, code === 128 + 9 || signal === 'SIGKILL']).toEqual([round, true]);

      server = await start();
      expect(server.output()).not.toMatch(/sg_[0-9A-Za-z]{32,}/); // the workspace survived: no new first key
      await verify(call, fixtures, acknowledged, round);
    }

    server.child.kill('SIGTERM');
    expect((await once(server.child, 'exit'))[0]).toBe(0);
  });
});

type Call = (method: string, path: string, body?: unknown) => Promise<Reply>;

/** Every page of a GraphQL list. */
async function everything(call: Call, field: string, selection: string): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page += 1) {
    const reply = await call('POST', '/graphql', { query: `{ ${field}(page: ${page}, perPage: 100) { data { ${selection} } } }` });
    expect([field, reply.status, reply.body.errors]).toEqual([field, 200, undefined]);
    const data = reply.body.data[field].data as any[];
    if (data.length === 0) return out;
    out.push(...data);
  }
}

async function verify(call: Call, fixtures: Fixtures, acknowledged: Acknowledged, round: number) {
  // Each acknowledged record reads back exactly as it was acknowledged.
  for (const contact of acknowledged.contacts) {
    const reply = await call('GET', `/contacts/${contact.id}`);
    expect([round, 'contact', reply.status, reply.body]).toEqual([round, 'contact', 200, contact]);
  }
  for (const link of acknowledged.links) {
    const reply = await call('GET', `/payment-links/${link.id}`);
    expect([round, 'payment link', reply.status, reply.body]).toEqual([round, 'payment link', 200, link]);
  }
  const transactions = new Map<string, any>();
  for (const transaction of acknowledged.transactions) {
    const reply = await call('GET', `/payment-transactions/${transaction.id}`);
    expect([round, 'transaction', reply.status]).toEqual([round, 'transaction', 200]);
    const { status: _status, events: _events, ...stored } = reply.body;
    const { status: _s, events: _e, ...acked } = transaction;
    expect([round, 'transaction', stored]).toEqual([round, 'transaction', acked]);
    transactions.set(transaction.id, reply.body);
  }
  for (const { transactionId, event } of acknowledged.events) {
    expect([round, 'event', transactions.get(transactionId)?.events]).toEqual([round, 'event', expect.arrayContaining([event])]);
  }
  expect(acknowledged.contacts.length + acknowledged.transactions.length + acknowledged.events.length + acknowledged.links.length).toBeGreaterThanOrEqual(KILL_AFTER * round);

  // No record is half-written, acknowledged or not.
  const contacts = await everything(call, 'contacts', 'id companies { id }');
  expect(contacts.length).toBeGreaterThanOrEqual(acknowledged.contacts.length);
  for (const contact of contacts) {
    expect([round, contact.id, sorted(contact.companies.map((c: { id: string }) => c.id))]).toEqual([round, contact.id, sorted(fixtures.companyIds)]);
  }
  const links = await everything(call, 'paymentLinks', 'id products { id }');
  expect(links.length).toBeGreaterThanOrEqual(acknowledged.links.length + 1);
  for (const link of links) {
    expect([round, link.id, sorted(link.products.map((p: { id: string }) => p.id))]).toEqual([round, link.id, sorted(fixtures.productIds)]);
  }
  const stored = await everything(call, 'paymentTransactions', 'id status events { status occurredAt }');
  expect(stored.length).toBeGreaterThanOrEqual(acknowledged.transactions.length);
  for (const transaction of stored) {
    const latest = [...transaction.events].sort((a, b) => a.occurredAt.localeCompare(b.occurredAt)).at(-1);
    expect([round, transaction.id, transaction.status]).toEqual([round, transaction.id, latest?.status ?? 'pending']);
  }
}
