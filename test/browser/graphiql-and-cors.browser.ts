import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Locator, type Page, type Request, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveDatabase } from '../../src/db/database-url.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { type Client, type TestApp, newClient, startApp } from '../support/app.js';
import { type PageServer, servePage } from './pages.js';

let dir: string;
let app: TestApp;
let api: Client;
let listed: PageServer;
let unlisted: PageServer;
let browser: Browser;
const email = `ada-${Date.now()}@example.com`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'salesgraph-browser-'));
  const databaseUrl = `file:${join(dir, 'browser.db')}`;
  await applyMigrations(resolveDatabase(databaseUrl));
  [listed, unlisted] = await Promise.all([servePage(), servePage()]);
  app = await startApp({ databaseUrl, corsOrigins: [listed.origin] });
  api = await newClient(app);
  expect((await api.post('/contacts', { first_name: 'Ada', email })).status).toBe(201);
  const sparticuz = (await import('@sparticuz/chromium')).default;
  // The package's defaults are for AWS Lambda: without --disable-web-security (CORS is what is
  // tested) and without --single-process (there, closing a page closes the whole browser).
  const args = sparticuz.args.filter((arg) => arg !== '--disable-web-security' && arg !== '--single-process');
  browser = await chromium.launch({ executablePath: await sparticuz.executablePath(), args, headless: true });
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([app?.close(), listed?.close(), unlisted?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A Monaco editor's text as shown (Monaco renders spaces as no-break spaces). */
const editorText = async (editor: Locator) => ((await editor.locator('.view-lines').textContent()) ?? '').replace(/\u00a0/g, ' ');

describe('GraphiQL in a browser', () => {
  /** Requests the page made to /graphql itself (its own document left out). */
  const graphqlCalls = (requested: Request[]) => requested.filter((r) => r.url().startsWith(`${app.url}/graphql`) && r.resourceType() !== 'document');

  /** Runs the open tab's operation and returns the result pane once it shows `expected`. */
  async function run(page: Page, expected: string) {
    await page.getByRole('button', { name: /^Execute query/ }).click();
    // Read as text: on a narrow screen the result pane wraps every few characters.
    const result = page.locator('section.result-window');
    await expect.poll(() => editorText(result), { timeout: 20_000 }).toContain(expected);
    return editorText(result);
  }

  /**
   * Runs the open tab's operation and returns the server's answer (a narrow result pane shows only
   * its first characters). The schema's introspection, which GraphiQL sends again once a key is
   * set, may still be on its way: its answer is not the operation's.
   */
  async function answerOf(page: Page): Promise<string> {
    const answered = page.waitForResponse(
      (r) => r.url() === `${app.url}/graphql` && r.request().method() === 'POST' && !(r.request().postData() ?? '').includes('IntrospectionQuery'),
    );
    await page.getByRole('button', { name: /^Execute query/ }).click();
    return (await answered).text();
  }

  for (const viewport of [{ width: 1280, height: 800 }, { width: 375, height: 812 }]) {
    it(`asks for the key once, sends nothing before it, and every tab and the docs use it (${viewport.width} px)`, async () => {
      // A workspace of its own: the third tab creates a contact.
      const api = await newClient(app);
      const email = `grace-${viewport.width}@example.com`;
      expect((await api.post('/contacts', { first_name: 'Grace', email })).status).toBe(201);
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const requested: Request[] = [];
      page.on('request', (request) => requested.push(request));
      try {
        await page.goto(`${app.url}/graphql`);
        await page.locator('.graphiql-container').first().waitFor();
        const bar = page.locator('#salesgraph-key');
        await expect.poll(() => bar.locator('output').textContent()).toBe('No key yet: nothing is sent.');
        // The bar fits the window.
        const box = (await bar.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
        // Tabs are named after their operations.
        if (viewport.width >= 1280) {
          const tabs = await page.locator('.graphiql-tab .graphiql-tab-button').allTextContents();
          expect(tabs.map((t) => t.trim())).toEqual(['FirstContacts', 'ContactEvents', 'CreateAda']);
        }
        // Before a key: nothing sent, the page says where the key goes.
        const refusal = await run(page, viewport.width >= 1280 ? 'Enter your API key' : '"errors"');
        if (viewport.width >= 1280) expect(refusal).toContain('Enter your API key');
        expect(graphqlCalls(requested)).toEqual([]);

        await bar.locator('input').fill(api.key);
        await bar.getByRole('button', { name: 'Use key' }).click();
        await expect.poll(() => bar.locator('output').textContent()).toBe('Key set: every tab sends it.');
        expect(await answerOf(page)).toContain(`"total":1,"data":[{"id":"`);
        if (viewport.width >= 1280) expect(await run(page, email)).toMatch(/"total": 1,/);
        // Every request carried the key, none a placeholder.
        expect(graphqlCalls(requested).length).toBeGreaterThanOrEqual(2);
        for (const call of graphqlCalls(requested)) expect(call.headers()['x-api-key']).toBe(api.key);

        if (viewport.width >= 1280) {
          // The third tab, with no key of its own, runs with the same one.
          await page.locator('.graphiql-tab', { hasText: 'CreateAda' }).click();
          await expect.poll(() => editorText(page.locator('section.graphiql-query-editor'))).toContain('mutation CreateAda');
          // GraphiQL keeps the last tab's operation name until the cursor is in the new tab's document.
          await page.locator('section.graphiql-query-editor .view-lines').click();
          expect(await run(page, '"createContact"')).toContain('"email": "ada@example.com"');

          // The docs read the schema fetched with the key, without a re-fetch by hand.
          await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
          const docs = page.locator('section.graphiql-doc-explorer');
          await docs.locator('a.graphiql-doc-explorer-type-name', { hasText: /^Contact$/ }).click();
          await docs.locator('.graphiql-doc-explorer-title', { hasText: /^Contact$/ }).waitFor();
          const fields = await docs.locator('a.graphiql-doc-explorer-field-name').allTextContents();
          expect(fields).toEqual(expect.arrayContaining(['id', 'firstName', 'lastName', 'email', 'notes', 'properties', 'companies', 'createdAt', 'updatedAt']));
        }

        // The key stays in this browser: a reload asks for nothing.
        await page.reload();
        await page.locator('.graphiql-container').first().waitFor();
        await expect.poll(() => bar.locator('input').inputValue()).toBe(api.key);
        if (viewport.width >= 1280) {
          await page.locator('.graphiql-tab', { hasText: 'FirstContacts' }).click();
          // GraphiQL restores the tab's document (once its editor has loaded) and the last operation's
          // name too: the cursor in the document sets it again.
          const queryEditor = page.locator('section.graphiql-query-editor');
          await expect.poll(() => editorText(queryEditor)).toContain('query FirstContacts');
          await queryEditor.locator('.view-lines').click();
          expect(await answerOf(page)).toContain(email);
        }

        // Everything the page asked for came from our server (blob: URLs are its own workers).
        const elsewhere = requested.map((r) => r.url()).filter((url) => new URL(url.replace(/^blob:/, '')).origin !== app.url);
        expect(elsewhere).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});

describe('CORS in a browser', () => {
  /** Opens the client page on an origin and returns what its fetch calls saw. */
  async function callFrom(origin: string) {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/#${encodeURIComponent(JSON.stringify({ api: app.url, key: api.key }))}`);
      await page.locator('body[data-done="true"]').waitFor();
      return JSON.parse((await page.locator('#out').textContent()) ?? '');
    } finally {
      await page.close();
    }
  }

  it('lets a listed origin call REST and GraphQL, and read the exposed headers', async () => {
    const seen = await callFrom(listed.origin);
    expect(seen.rest).toMatchObject({ status: 200, limit: '100000', body: { total: 1, data: [{ email }] } });
    expect(seen.rest.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(seen.rest.remaining)).toBeGreaterThan(0);
    // An error is readable too.
    expect(seen.unauthenticated).toMatchObject({ status: 401, body: { message: 'Unauthenticated.' } });
    expect(seen.unauthenticated.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.graphql).toMatchObject({ status: 200, body: { data: { contacts: { total: 1, data: [{ email }] } } } });
    expect(seen.graphql.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(seen.graphql.remaining)).toBe(Number(seen.rest.remaining) - 1);
  });

  it('refuses an origin that is not listed', async () => {
    const seen = await callFrom(unlisted.origin);
    for (const call of ['rest', 'unauthenticated', 'graphql']) expect(seen[call], call).toEqual({ error: 'TypeError: Failed to fetch' });
  });
});
