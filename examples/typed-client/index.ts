// A typed REST client: `api.d.ts` is generated from the OpenAPI document by
// `npm run examples:build`, and openapi-fetch checks every path, parameter and body against it.
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Contact = components['schemas']['Contact'];

const key = process.env.SALESGRAPH_KEY;
if (!key) throw new Error('Set SALESGRAPH_KEY to an API key: npm run --silent cli -- keys create --workspace demo --json');
const baseUrl = `${process.env.SALESGRAPH_URL ?? 'http://127.0.0.1:3000'}/api/v1`;

const api = createClient<paths>({ baseUrl, headers: { 'X-Api-Key': key } });

const created = await api.POST('/contacts', { body: { first_name: 'Ada', last_name: 'Lovelace', email: `ada-${Date.now()}@example.com` } });
if (!created.data) throw new Error(`Create failed (${created.response.status}): ${created.error?.message}`);
console.log(`Created contact ${created.data.id} (${created.response.status})`);

const page = await api.GET('/contacts', { params: { query: { per_page: 5, search: 'ada' } } });
if (!page.data) throw new Error(`List failed (${page.response.status}): ${page.error?.message}`);
// A list answers by page, or (with `cursor`) by cursor: the page envelope has the total.
if (!('total' in page.data)) throw new Error('Asked by page, answered by cursor');
const first: Contact | undefined = page.data.data[0];
const email: string | undefined = first?.email;
console.log(`${page.data.total} contacts match; the first is ${email ?? 'none'}`);

// Invalid input is 422 with every violated field, by its snake_case name.
const refused = await api.POST('/contacts', { body: { first_name: '', email: 'not an e-mail' } });
if (refused.error && 'errors' in refused.error) {
  for (const [field, reasons] of Object.entries(refused.error.errors)) console.log(`422 ${field}: ${reasons.join(' ')}`);
}
