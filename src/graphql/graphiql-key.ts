/**
 * GraphiQL's API key, asked for once (API.md section 4; issue 43): a bar above GraphiQL
 * takes the key, keeps it in the browser (localStorage, this origin only) and every tab's
 * requests carry it as `X-Api-Key` (a tab's own `X-Api-Key` header wins). Until a key is
 * set nothing is sent: the page answers itself, saying where the key goes. Saving a key
 * fetches the schema again, so the Docs pane and autocomplete follow at once.
 *
 * The script runs before GraphiQL's bundle, so the fetch GraphiQL keeps is this one.
 */
const SCRIPT = `
(() => {
  const STORE = 'salesgraph.apiKey';
  const stored = () => { try { return localStorage.getItem(STORE) || ''; } catch { return ''; } };
  const realFetch = window.fetch.bind(window);
  const isGraphql = (input) => new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url, location.href).pathname === '/graphql';
  window.fetch = (input, init) => {
    if (!isGraphql(input)) return realFetch(input, init);
    const key = stored();
    if (!key) {
      const body = { errors: [{ message: 'Enter your API key (sg_...) in the bar above: nothing is sent without one.', extensions: { code: 'UNAUTHENTICATED' } }] };
      return Promise.resolve(new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    }
    const headers = new Headers(init && init.headers ? init.headers : input instanceof Request ? input.headers : undefined);
    if (!headers.has('X-Api-Key')) headers.set('X-Api-Key', key);
    return realFetch(input, { ...(init || {}), headers });
  };
  const refetchSchema = () => {
    const button = document.querySelector('button[aria-label^="Re-fetch GraphQL schema"]');
    if (button) button.click();
  };
  document.addEventListener('DOMContentLoaded', () => {
    const form = document.createElement('form');
    form.id = 'salesgraph-key';
    form.innerHTML = '<label for="salesgraph-key-input">API key</label>' +
      '<input id="salesgraph-key-input" name="key" type="password" autocomplete="off" spellcheck="false" placeholder="sg_... (npm run --silent cli -- keys create --workspace <name> --json)">' +
      '<button type="submit">Use key</button><button type="button" id="salesgraph-key-forget">Forget</button>' +
      '<output id="salesgraph-key-state" aria-live="polite"></output>';
    document.body.insertBefore(form, document.body.firstChild);
    const input = form.querySelector('input');
    const state = form.querySelector('output');
    const show = () => { state.textContent = stored() ? 'Key set: every tab sends it.' : 'No key yet: nothing is sent.'; };
    input.value = stored();
    show();
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const key = input.value.trim();
      try { key ? localStorage.setItem(STORE, key) : localStorage.removeItem(STORE); } catch {}
      show();
      refetchSchema();
    });
    form.querySelector('#salesgraph-key-forget').addEventListener('click', () => {
      try { localStorage.removeItem(STORE); } catch {}
      input.value = '';
      show();
    });
  });
})();
`;

const STYLE = `
html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; }
#root { flex: 1; min-height: 0; }
#salesgraph-key { display: flex; flex-wrap: wrap; gap: 6px 8px; align-items: center; padding: 6px 10px; font: 14px system-ui, sans-serif; border-bottom: 1px solid #ddd; }
#salesgraph-key input { flex: 1 1 16em; min-width: 0; padding: 4px 6px; font: 13px ui-monospace, monospace; }
#salesgraph-key output { color: #555; font-size: 13px; }
`;

/** Yoga's GraphiQL page with the key bar: its script first in the head, before GraphiQL's bundle. */
export function withKeyBar(html: string): string {
  return html.replace('<head>', () => `<head>\n<style>${STYLE}</style>\n<script>${SCRIPT}</script>`);
}
