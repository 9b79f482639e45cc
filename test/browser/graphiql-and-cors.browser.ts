import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Locator, chromium } from 'playwright-core';
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
  it('loads from our server only, runs a query with a pasted key, and browses the docs', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    try {
      await page.goto(`${app.url}/graphql`);
      await page.locator('.graphiql-container').first().waitFor();

      // The headers editor comes with the key's header to fill: replace it with a real key.
      const headers = page.locator('section.graphiql-editor-tool .graphiql-editor:not(.hidden)');
      expect(await editorText(headers)).toContain('"X-Api-Key": "paste your sg_... key here"');
      await headers.click();
      await page.keyboard.press('Control+A');
      await page.keyboard.type(JSON.stringify({ 'X-Api-Key': api.key }));
      // Monaco auto-closes quotes and braces as they are typed, and may still be adding them
      // (and rendering) when the typing ends: drop what follows the cursor until the text settles.
      await expect
        .poll(async () => {
          await page.keyboard.press('Shift+Control+End');
          await page.keyboard.press('Delete');
          return editorText(headers);
        })
        .toBe(JSON.stringify({ 'X-Api-Key': api.key }));

      // The schema was fetched at load without a key (401): fetch it again with the key.
      await page.getByRole('button', { name: /^Re-fetch GraphQL schema/ }).click();
      await page.getByRole('button', { name: /^Execute query/ }).click();
      const result = page.locator('section.result-window');
      await result.getByText(email).waitFor();
      expect(await editorText(result)).toMatch(/"total": 1,/);

      await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
      const docs = page.locator('section.graphiql-doc-explorer');
      await docs.locator('a.graphiql-doc-explorer-type-name', { hasText: /^Contact$/ }).click();
      await docs.locator('.graphiql-doc-explorer-title', { hasText: /^Contact$/ }).waitFor();
      const fields = await docs.locator('a.graphiql-doc-explorer-field-name').allTextContents();
      expect(fields).toEqual(expect.arrayContaining(['id', 'firstName', 'lastName', 'email', 'notes', 'properties', 'companies', 'createdAt', 'updatedAt']));

      // Everything the page asked for came from our server (blob: URLs are its own workers).
      const elsewhere = requested.filter((url) => new URL(url.replace(/^blob:/, '')).origin !== app.url);
      expect(elsewhere).toEqual([]);
      expect(requested.filter((url) => url.startsWith(`${app.url}/graphql`)).length).toBeGreaterThanOrEqual(3);
    } finally {
      await page.close();
    }
  });
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
