import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveDatabase } from '../../src/db/database-url.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { type Client, type TestApp, newClient, startApp } from '../support/app.js';

// The payment page (API.md section 7) in a real headless Chromium, 375 px wide: the whole
// flow, the decline flow, nothing loaded from elsewhere, and axe-core's accessibility rules.
let dir: string;
let app: TestApp;
let api: Client;
let browser: Browser;
let token: string;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'salesgraph-checkout-'));
  const databaseUrl = `file:${join(dir, 'checkout.db')}`;
  await applyMigrations(resolveDatabase(databaseUrl));
  app = await startApp({ databaseUrl });
  api = await newClient(app);
  const account = (await api.post('/payment-provider-accounts', { name: 'Test', provider: 'test' })).body;
  const link = (
    await api.post('/payment-links', {
      name: 'Annual workshop pass with a rather long name that must wrap on a phone',
      description: 'Twelve workshops, one a month.',
      amount: 1200,
      currency: 'USD',
      max_installments: 12,
      interest_rate: 1.5,
      payment_provider_account_id: account.id,
    })
  ).body;
  expect((await api.post(`/payment-links/${link.id}/activate`)).status).toBe(200);
  expect((await api.post('/payment-coupons', { code: 'SAVE100', type: 'amount', value: 100, payment_link_id: link.id })).status).toBe(201);
  token = link.public_token;
  const sparticuz = (await import('@sparticuz/chromium')).default;
  const args = sparticuz.args.filter((arg) => arg !== '--single-process');
  browser = await chromium.launch({ executablePath: await sparticuz.executablePath(), args, headless: true });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A phone-sized page that notes every request it makes and every CSP complaint. */
async function phone(options: { bypassCSP?: boolean } = {}) {
  const context = await browser.newContext({ viewport: { width: 375, height: 740 }, bypassCSP: options.bypassCSP ?? false });
  const page = await context.newPage();
  const requested: string[] = [];
  const console: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => console.push(message.text()));
  return { page, requested, console, close: () => context.close() };
}

const noHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

describe('the payment page', () => {
  it('pays: 6 installments, a coupon that changes the total, the test provider approves, the result says paid', async () => {
    const { page, requested, console, close } = await phone();
    try {
      await page.goto(`${app.url}/pay/${token}`);
      await expect.poll(() => page.locator('h1').textContent()).toContain('Annual workshop pass');
      expect(await noHorizontalScroll(page)).toBe(true);
      const total = page.locator('[data-amount="total"]');
      expect(await total.textContent()).toBe('$1,200.00');

      // Keyboard: the sixth option is a labelled radio.
      await page.getByRole('radio', { name: /^6 \S+ \$210\.63/ }).check();
      // 1200 at 1.5% over 6 months: 210.63 each, total 1263.78.
      await expect.poll(() => total.textContent()).toBe('$1,263.78');
      await page.getByLabel('Coupon code').fill('save100');
      await page.getByRole('button', { name: 'Apply' }).click();
      // 1100 at 1.5% over 6 months: 193.08 each, total 1158.48.
      await expect.poll(() => total.textContent()).toBe('$1,158.48');
      await expect.poll(() => page.locator('[data-amount="discount"]').textContent()).toBe('$100.00');
      // Every option is priced after the coupon: the one chosen, and the others (1100 at 1.5% over 12: 100.85 each).
      await expect.poll(() => page.getByRole('radio', { name: /^6 / }).evaluate((r) => r.parentElement!.textContent)).toBe(' 6 × $193.08 (total $1,158.48, interest $58.48)');
      expect(await page.getByRole('radio', { name: /^12 / }).evaluate((r) => r.parentElement!.textContent)).toBe(' 12 × $100.85 (total $1,210.20, interest $110.20)');
      expect(await page.getByRole('radio', { name: /^Pay in full/ }).evaluate((r) => r.parentElement!.textContent)).toBe(' Pay in full: $1,100.00');
      expect(await page.getByRole('radio', { name: /^6 / }).isChecked()).toBe(true);

      await page.getByLabel('Name').fill('Ada Lovelace');
      await page.getByLabel('E-mail').fill('ada@example.com');
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.waitForURL(/\/test-provider$/);
      expect(await noHorizontalScroll(page)).toBe(true);
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForURL(/\/pay\/checkouts\/[A-Za-z0-9_-]+$/);
      await expect.poll(() => page.locator('[data-status]').getAttribute('data-status')).toBe('paid');
      expect(await page.getByRole('status').textContent()).toContain('Paid');
      // The receipt: its reference, the six installments with their dates, the total.
      expect(await page.getByRole('heading', { name: 'Receipt' }).isVisible()).toBe(true);
      expect(await page.locator('[data-receipt="reference"]').textContent()).toMatch(/^[A-Za-z0-9_-]{12}$/);
      expect(await page.getByRole('table').locator('tbody tr').count()).toBe(6);
      expect(await page.locator('[data-installment="6"]').textContent()).toBe('$193.08');
      expect(await page.locator('[data-amount="total"]').textContent()).toBe('$1,158.48');
      expect(await noHorizontalScroll(page)).toBe(true);

      const [transaction] = (await api.get('/payment-transactions')).body.data;
      expect(transaction).toMatchObject({ status: 'paid', amount: 1158.48 });
      expect(transaction.metadata.checkout.amounts).toMatchObject({ installments: 6, discount: 100, coupon: { code: 'SAVE100' } });
      // Nothing left 127.0.0.1, and the Content-Security-Policy had nothing to refuse.
      expect(requested.filter((url) => !url.startsWith(app.url))).toEqual([]);
      expect(console.filter((text) => /Content Security Policy|Refused to/i.test(text))).toEqual([]);
    } finally {
      await close();
    }
  });

  it('declines: the result says the payment failed', async () => {
    const { page, close } = await phone();
    try {
      await page.goto(`${app.url}/pay/${token}`);
      await page.getByLabel('Name').fill('Grace Hopper');
      await page.getByLabel('E-mail').fill('grace@example.com');
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.waitForURL(/\/test-provider$/);
      await page.getByRole('button', { name: 'Decline' }).click();
      await expect.poll(() => page.locator('[data-status]').getAttribute('data-status')).toBe('failed');
    } finally {
      await close();
    }
  });

  it('shows a refused coupon next to its field, and works without JavaScript', async () => {
    const { page, close } = await phone();
    try {
      await page.goto(`${app.url}/pay/${token}`);
      await page.getByLabel('Coupon code').fill('NOPE');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.locator('#coupon_code-error').textContent()).toBe('The coupon is not valid.');
    } finally {
      await close();
    }
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, javaScriptEnabled: false });
    try {
      const plain = await context.newPage();
      await plain.goto(`${app.url}/pay/${token}`);
      await plain.getByRole('radio', { name: /^3 / }).check();
      await plain.getByLabel('Coupon code').fill('SAVE100');
      await plain.getByRole('button', { name: 'Apply' }).click();
      // 1100 at 1.5% over 3 months: 377.72 each, total 1133.16.
      expect(await plain.locator('[data-amount="total"]').textContent()).toBe('$1,133.16');
      expect(await plain.getByRole('radio', { name: /^3 / }).evaluate((r) => r.parentElement!.textContent)).toBe(' 3 × $377.72 (total $1,133.16, interest $33.16)');
      await plain.getByLabel('Name').fill('Plain Payer');
      await plain.getByLabel('E-mail').fill('plain@example.com');
      await plain.getByRole('button', { name: 'Pay' }).click();
      await plain.waitForURL(/\/test-provider$/);
      await plain.getByRole('button', { name: 'Approve' }).click();
      expect(await plain.locator('[data-status]').getAttribute('data-status')).toBe('paid');
    } finally {
      await context.close();
    }
  });

  it('has no serious or critical accessibility violation (axe-core), on the page, the provider page and the result', async () => {
    // axe is injected by the test, so this page alone lets it past the CSP.
    const { page, close } = await phone({ bypassCSP: true });
    const violations = async () => {
      await page.addScriptTag({ content: AXE });
      const result = await page.evaluate(async () => (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> } }).axe.run());
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    };
    try {
      await page.goto(`${app.url}/pay/${token}`);
      expect(await violations()).toEqual([]);
      await page.getByLabel('Name').fill('Axe Checker');
      await page.getByLabel('E-mail').fill('axe@example.com');
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.waitForURL(/\/test-provider$/);
      expect(await violations()).toEqual([]);
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForURL(/\/pay\/checkouts\/[A-Za-z0-9_-]+$/);
      expect(await violations()).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe('the payment page with a provider that asks for more (Asaas)', () => {
  it('asks for a CPF and the method, and shows the Pix code itself, at 375 px', async () => {
    const { startAsaasFake, SAMPLE_CPF } = await import('../support/fakes/asaas.js');
    const asaas = await startAsaasFake();
    const other = await startApp({ databaseUrl: `file:${join(dir, 'checkout.db')}`, payments: { ASAAS_API_BASE: asaas.url } });
    const { page, requested, console, close } = await phone();
    try {
      const shop = await newClient(other);
      const account = (await shop.post('/payment-provider-accounts', { name: 'Asaas', provider: 'asaas', credentials: { api_key: asaas.apiKey } })).body;
      const link = (await shop.post('/payment-links', { name: 'Plano anual', amount: 120, currency: 'BRL', payment_provider_account_id: account.id })).body;
      await shop.post(`/payment-links/${link.id}/activate`);
      await page.goto(`${other.url}/pay/${link.public_token}`);
      await page.getByLabel('Name').fill('Ana Souza');
      await page.getByLabel('E-mail').fill('ana@example.com');
      // A CPF whose check digits are wrong: refused beside its field, nothing made at Asaas.
      await page.getByLabel('CPF or CNPJ').fill('529.982.247-24');
      await page.getByRole('button', { name: 'Pay' }).click();
      await expect.poll(() => page.locator('#payer_tax_id-error').textContent()).toBe('Enter a valid CPF or CNPJ.');
      expect(asaas.payments.size).toBe(0);
      await page.getByLabel('CPF or CNPJ').fill('529.982.247-25');
      await page.getByRole('radio', { name: 'Pix' }).check();
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.waitForURL(/\/pay\/checkouts\/[A-Za-z0-9_-]+$/);
      await expect.poll(() => page.getByRole('img', { name: 'Pix QR code' }).isVisible()).toBe(true);
      expect(await page.getByLabel('Pix copy-and-paste code').inputValue()).toMatch(/\S{20,}/);
      expect(await page.getByRole('button', { name: 'Copy the code' }).isVisible()).toBe(true);
      expect(await noHorizontalScroll(page)).toBe(true);
      const made = [...asaas.payments.values()];
      expect(made.map((p) => p.billingType)).toEqual(['PIX']);
      expect(asaas.customers.get(made[0]!.customer)!.cpfCnpj).toBe(SAMPLE_CPF);
      expect(requested.filter((url) => !url.startsWith(other.url) && !url.startsWith('data:'))).toEqual([]);
      expect(console.filter((text) => /Content Security Policy|Refused to/i.test(text))).toEqual([]);
    } finally {
      await close();
      await other.close();
      await asaas.close();
    }
  });
});
