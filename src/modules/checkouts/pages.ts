import { readFileSync } from 'node:fs';
import { type DocumentNode, GraphQLError, type GraphQLSchema, parse, validate } from 'graphql';
import { Response } from '@whatwg-node/fetch';
import type { Admit, Context } from '../../graphql/context.js';
import { runOperation } from '../../graphql/operations.js';

import type { RequestFacts } from '../../http/request-facts.js';
import { readBody } from '../../http/responses.js';
import { jsonValueErrors } from '../../validation/json-values.js';
import { logError } from '../../log.js';
import { minorUnitExponent } from '../../payments/currencies.js';
import { projectFile } from '../../project-files.js';
import { PUBLIC_LINK_FIELDS } from './checkouts.rest.js';
import { ensureProviderCheckout } from './provider-checkout.js';

/**
 * The payer's pages (API.md section 7, "The page"): server-rendered HTML from the
 * project's own files, working without JavaScript (forms post here) and enhanced by
 * public/pay.js (amounts updated as the payer chooses, the checkout started with fetch).
 * Each page runs the same GraphQL fields as the public API, behind the same gate.
 */

// The project's own assets: nothing is loaded from elsewhere, so the page works offline.
const ASSETS: Record<string, { type: string; body: string }> = {
  'pay.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(projectFile('public/pay.js'), 'utf8') },
  'pay.css': { type: 'text/css; charset=utf-8', body: readFileSync(projectFile('public/pay.css'), 'utf8') },
};

/** Scripts and styles from this origin only, no inline code, forms posting only here, never framed. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const PAGE_HEADERS = { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' };

const METHOD_NAMES: Record<string, string> = { pix: 'Pix', boleto: 'Boleto', card: 'Card' };
const escape = (text: unknown) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** An amount in the currency's format, with the ISO 4217 minor digits (Intl's own differ for some codes). */
export function formatMoney(amount: number, currency: string): string {
  const digits = minorUnitExponent(currency);
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount);
  } catch {
    return `${amount.toFixed(digits)} ${currency}`;
  }
}

function page(status: number, title: string, body: string, headers: Record<string, string> = {}): Response {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<link rel="stylesheet" href="/pay/assets/pay.css">
<script src="/pay/assets/pay.js" defer></script>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
  return new Response(html, { status, headers: { ...PAGE_HEADERS, ...headers } });
}

const notFoundPage = (message: string, headers: Record<string, string> = {}) => page(404, 'Not found', `<h1>Not found</h1>\n<p>${escape(message)}</p>`, headers);

const DOCUMENTS = {
  link: `query ($publicToken: String!) { publicPaymentLink(publicToken: $publicToken) { ${PUBLIC_LINK_FIELDS} } }`,
  quote: `query ($publicToken: String!, $input: CheckoutQuoteInput!) {
    checkoutQuote(publicToken: $publicToken, input: $input) {
      currency subtotal discount total interest installments installmentAmount coupon { code }
      installmentOptions { installments installmentAmount total interest }
    }
  }`,
  create: `mutation ($publicToken: String!, $input: CreateCheckoutInput!) { createCheckout(publicToken: $publicToken, input: $input) { checkoutId nextAction { url } } }`,
  checkout: `query ($checkoutId: String!) {
    checkout(checkoutId: $checkoutId) {
      checkoutId status createdAt currency subtotal discount interest total installments installmentAmount
      schedule { number amount dueDate } coupon { code }
      paymentLink { name publicToken products { name price currency } } nextAction { type url pix { payload image expiresAt } }
    }
  }`,
  decide: `mutation ($id: ID!, $input: AppendPaymentTransactionEventInput!) { appendPaymentTransactionEvent(transactionId: $id, input: $input) { created } }`,
};

type Link = {
  publicToken: string; name: string; description: string | null; currency: string; subtotal: number;
  products: { name: string; price: number; currency: string }[]; isRecurring: boolean; intervalUnit: string; intervalCount: number;
  billingCycles: number | null; maxInstallments: number; interestRate: number;
  installmentOptions: { installments: number; installmentAmount: number; total: number; interest: number }[];
  payerFields: string[]; paymentMethods: string[];
};
type Option = Link['installmentOptions'][number];
type Quote = {
  currency: string; subtotal: number; discount: number; total: number; interest: number; installments: number; installmentAmount: number;
  coupon: { code: string } | null; installmentOptions: Option[];
};
type Receipt = Omit<Quote, 'installmentOptions'> & {
  checkoutId: string; status: string; createdAt: string; schedule: { number: number; amount: number; dueDate: string }[];
  paymentLink: { name: string; publicToken: string; products: Link['products'] }; nextAction: { type: string; url: string; pix: { payload: string; image: string; expiresAt: string | null } | null } | null;
};
type Problem = { status: number; message: string; errors?: Record<string, string[]> };

const STATUS_TEXT: Record<string, string> = {
  pending: 'Waiting for your payment',
  processing: 'Processing',
  paid: 'Paid',
  failed: 'Payment failed',
  refunded: 'Refunded',
  canceled: 'Canceled',
};

export function createPayPages(schema: GraphQLSchema, gate: Admit) {
  // Checked once at start, as the REST routes' documents are; the pages read the GraphQL names (no snake_case aliases).
  const compiled = Object.fromEntries(
    Object.entries(DOCUMENTS).map(([name, source]) => {
      const document = parse(source);
      const problems = validate(schema, document);
      if (problems.length > 0) throw new Error(`payment page ${name}: invalid GraphQL document: ${problems.map((p) => p.message).join('; ')}`);
      return [name, document];
    }),
  ) as Record<keyof typeof DOCUMENTS, DocumentNode>;

  /** Runs one of the pages' documents: its field's data (snake_case, as REST), or the problem as REST would answer it. */
  async function run<T>(name: keyof typeof DOCUMENTS, variables: Record<string, unknown>, context: Context): Promise<{ data: T } | { problem: Problem }> {
    const result = await runOperation(schema, compiled[name], variables, { ...context });
    if (result.ok) return { data: Object.values(result.data)[0] as T };
    const { status, error } = result;
    if (error && (status === 404 || status === 422)) return { problem: { status, message: error.message, errors: error.extensions.errors as Record<string, string[]> | undefined } };
    throw result.thrown;
  }

  return async function handle(request: Request, facts: RequestFacts, url: URL): Promise<Response> {
    const segments = url.pathname.split('/').filter(Boolean).map((s) => { try { return decodeURIComponent(s); } catch { return ''; } });
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    // /pay/assets/<file>
    if (segments[1] === 'assets' && segments.length === 3) {
      const asset = ASSETS[segments[2]!];
      if (!asset || method !== 'GET') return notFoundPage('No such file.');
      return new Response(asset.body, { headers: { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=300', 'X-Content-Type-Options': 'nosniff' } });
    }
    const route: { kind: 'link' | 'result' | 'provider' | 'continue'; token: string } | undefined =
      segments.length === 2 ? { kind: 'link', token: segments[1]! }
      : segments.length === 3 && segments[1] === 'checkouts' ? { kind: 'result', token: segments[2]! }
      : segments.length === 4 && segments[1] === 'checkouts' && segments[3] === 'test-provider' ? { kind: 'provider', token: segments[2]! }
      : segments.length === 4 && segments[1] === 'checkouts' && segments[3] === 'continue' ? { kind: 'continue', token: segments[2]! }
      : undefined;
    if (!route || (method !== 'GET' && method !== 'POST') || (route.kind === 'continue' && method !== 'GET')) return notFoundPage('There is no such page.');
    const routeNames = { link: '{public_token}', result: 'checkouts/{checkout_id}', provider: 'checkouts/{checkout_id}/test-provider', continue: 'checkouts/{checkout_id}/continue' };
    facts.route = `${request.method} /pay/${routeNames[route.kind]}`;

    const admission = await gate(request, facts, route.kind === 'link' ? { publicToken: route.token } : { checkoutId: route.token });
    if (!admission.ok) {
      if (admission.status === 404) return notFoundPage(admission.message, admission.headers);
      return page(admission.status, 'Please wait', `<h1>Please wait</h1>\n<p>${escape(admission.message)}</p>`, admission.headers);
    }
    const context = admission.context;
    try {
      if (route.kind === 'link') return await linkPage(request, method, route.token, context);
      if (route.kind === 'result') return await resultPage(route.token, context);
      if (route.kind === 'continue') return await continueToProvider(route.token, context);
      return await providerPage(request, method, route.token, context);
    } catch (error) {
      logError(facts.requestId, error, facts.route);
      return page(500, 'Something went wrong', '<h1>Something went wrong</h1>\n<p>Please try again in a moment.</p>');
    }
  };

  async function linkPage(request: Request, method: string, publicToken: string, context: Context): Promise<Response> {
    const shown = await run<Link>('link', { publicToken }, context);
    if ('problem' in shown) {
      if (shown.problem.status === 404) return notFoundPage(shown.problem.message);
      return page(200, 'Payment link', `<h1>This payment link cannot be paid</h1>\n<p>${escape(shown.problem.message)}</p>`);
    }
    const link = shown.data;
    let form: Record<string, string> = {};
    let problem: Problem | undefined;
    let quoted: Quote | undefined;
    // Without JavaScript the form posts here: "Apply" quotes, "Pay" starts the checkout.
    const body = method === 'POST' ? await readBody(request) : undefined;
    form = body?.ok ? Object.assign(Object.create(null) as Record<string, string>, Object.fromEntries(new URLSearchParams(body.bytes.toString('utf8')))) : {};
    // The JSON body's rules hold for a form too: a NUL or a lone surrogate is refused before anything runs.
    const unreadable = jsonValueErrors(form);
    if (Object.keys(unreadable).length > 0) {
      form = {};
      problem = { status: 422, message: 'The given data was invalid.', errors: unreadable };
    } else if (method === 'POST') {
      // A form sends text: anything but a small whole number is refused by the rules (1..48) as 0 is.
      const installments = /^\d{1,2}$/.test(form.installments ?? '1') ? Number(form.installments ?? '1') : 0;
      const couponCode = form.coupon_code?.trim() ? form.coupon_code.trim() : undefined;
      if (form.action === 'pay') {
        const created = await run<{ checkoutId: string; nextAction: { url: string } | null }>('create', {
          publicToken,
          input: {
            installments,
            couponCode,
            payer: { name: form.name ?? '', email: form.email ?? '', ...(link.payerFields.includes('tax_id') ? { taxId: form.tax_id ?? '' } : {}) },
            ...(form.payment_method ? { paymentMethod: form.payment_method } : {}),
          },
        }, context);
        if ('data' in created) {
          const next = created.data.nextAction?.url ?? `/pay/checkouts/${encodeURIComponent(created.data.checkoutId)}`;
          return new Response(null, { status: 303, headers: { Location: next, 'Cache-Control': 'no-store' } });
        }
        problem = created.problem;
      }
      const q = await run<Quote>('quote', { publicToken, input: { installments, couponCode } }, context);
      if ('data' in q) quoted = q.data;
      else problem ??= q.problem;
    }
    return page(problem ? 422 : 200, `Pay ${link.name}`, linkBody(link, form, quoted, problem));
  }

  /**
   * A real provider's page: the checkout's object there is made now if it was not yet
   * (outside any transaction, once), then 303 to it; a Pix code is shown on the result page.
   */
  async function continueToProvider(checkoutId: string, context: Context): Promise<Response> {
    const result = `/pay/checkouts/${encodeURIComponent(checkoutId)}`;
    let next;
    try {
      next = await ensureProviderCheckout(context.db, context.settings, checkoutId, context.origin);
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      return page(502, 'Please try again', `<h1>Please try again</h1>\n<p>${escape(error.message)}</p>\n<p><a href="${escape(result)}">Back to the checkout</a></p>`);
    }
    const location = next && next.type === 'redirect' ? next.url : result;
    return new Response(null, { status: 303, headers: { Location: location, 'Cache-Control': 'no-store' } });
  }

  async function resultPage(checkoutId: string, context: Context): Promise<Response> {
    const found = await run<Receipt>('checkout', { checkoutId }, context);
    if ('problem' in found) return notFoundPage(found.problem.message);
    const c = found.data;
    const pix = c.nextAction?.pix;
    const next = pix
      ? `<section class="pix" aria-label="Pay with Pix"><h2>Pay with Pix</h2>
<img class="pix-code" src="${escape(pix.image)}" alt="Pix QR code" width="240" height="240">
<label for="pix-payload">Pix copy-and-paste code</label>
<textarea id="pix-payload" readonly rows="4">${escape(pix.payload)}</textarea>
<button type="button" class="copy" data-copy="pix-payload">Copy the code</button>
${pix.expiresAt ? `<p>Valid until ${escape(pix.expiresAt)}.</p>` : ''}</section>`
      : c.nextAction ? `<p><a href="${escape(c.nextAction.url)}">Continue to the payment</a></p>` : '';
    return page(200, `${STATUS_TEXT[c.status] ?? c.status}: ${c.paymentLink.name}`, `<h1>${escape(c.paymentLink.name)}</h1>
<p class="status status-${escape(c.status)}" role="status">Status: <strong data-status="${escape(c.status)}">${escape(STATUS_TEXT[c.status] ?? c.status)}</strong></p>
${next}
${receiptBody(c)}`);
  }

  /** The built-in test provider's page: Approve or Decline record payment.paid or payment.failed through ingestion. */
  async function providerPage(request: Request, method: string, checkoutId: string, context: Context): Promise<Response> {
    const checkout = await context.db.checkout.findUnique({
      where: { token: checkoutId },
      select: { transactionId: true, transaction: { select: { status: true, amount: true, currency: true, providerAccount: { select: { id: true, provider: true } } } }, paymentLink: { select: { name: true } } },
    });
    if (!checkout || checkout.transaction.providerAccount.provider !== 'test') return notFoundPage('This checkout is not paid with the test provider.');
    const result = `/pay/checkouts/${encodeURIComponent(checkoutId)}`;
    if (method === 'POST') {
      const body = await readBody(request);
      const decision = body.ok ? new URLSearchParams(body.bytes.toString('utf8')).get('decision') : null;
      if (decision !== 'approve' && decision !== 'decline') return page(422, 'Test provider', '<h1>Test provider</h1>\n<p>Choose Approve or Decline.</p>');
      if (checkout.transaction.status === 'pending') {
        const paid = decision === 'approve';
        const outcome = await run('decide', {
          id: checkout.transactionId,
          input: { type: paid ? 'payment.paid' : 'payment.failed', status: paid ? 'paid' : 'failed', providerReference: `test_${checkoutId}`, occurredAt: new Date().toISOString(), payload: { decision } },
        }, { ...context, actor: { type: 'provider', id: checkout.transaction.providerAccount.id } });
        if ('problem' in outcome) throw new Error(`test provider: ${outcome.problem.message}`);
      }
      return new Response(null, { status: 303, headers: { Location: result, 'Cache-Control': 'no-store' } });
    }
    if (checkout.transaction.status !== 'pending') return new Response(null, { status: 303, headers: { Location: result, 'Cache-Control': 'no-store' } });
    const amount = formatMoney(checkout.transaction.amount.toNumber(), checkout.transaction.currency);
    return page(200, 'Test provider', `<h1>Test provider</h1>
<p>This page stands for a payment provider. Pay ${escape(amount)} for ${escape(checkout.paymentLink.name)}?</p>
<form method="post" class="decision">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="decline" class="secondary">Decline</button>
</form>`);
  }
}

function linkBody(link: Link, form: Record<string, string>, quoted: Quote | undefined, problem: Problem | undefined): string {
  const money = (n: number) => escape(formatMoney(n, link.currency));
  const chosen = quoted?.installments ?? Number(form.installments ?? 1);
  const errorsOf = (field: string) => problem?.errors?.[field]?.join(' ') ?? '';
  const fieldError = (field: string, id: string) => `<p class="error" id="${id}" data-error-for="${field}"${errorsOf(field) ? '' : ' hidden'}>${escape(errorsOf(field))}</p>`;
  const unit = link.intervalCount === 1 ? link.intervalUnit : `${link.intervalCount} ${link.intervalUnit}s`;
  const recurrence = link.isRecurring
    ? `<p class="recurrence">Charged every ${escape(unit)}${link.billingCycles ? `, ${link.billingCycles} times` : ', until canceled'}.</p>`
    : '';
  // After a coupon, every choice is priced on the discounted amount, as the checkout will be.
  const options = (quoted?.installmentOptions ?? link.installmentOptions)
    .map(
      (o) => `<label class="option"><input type="radio" name="installments" value="${o.installments}"${o.installments === chosen ? ' checked' : ''}> <span>${o.installments === 1 ? `Pay in full: ${money(o.total)}` : `${o.installments} × ${money(o.installmentAmount)} (total ${money(o.total)}${o.interest > 0 ? `, interest ${money(o.interest)}` : ''})`}</span></label>`,
    )
    .join('\n');
  const shown = quoted ?? { subtotal: link.subtotal, discount: 0, interest: link.installmentOptions[0]?.interest ?? 0, total: link.installmentOptions[0]?.total ?? link.subtotal };
  const general = problem && !problem.errors ? `<p class="error" role="alert">${escape(problem.message)}</p>` : '';
  return `<h1>${escape(link.name)}</h1>
${link.description ? `<p class="description">${escape(link.description)}</p>` : ''}
${productList(link.products)}
${recurrence}
<form method="post" id="checkout" data-public-token="${escape(link.publicToken)}" data-currency="${escape(link.currency)}" data-digits="${minorUnitExponent(link.currency)}" novalidate>
${general}
<fieldset${link.installmentOptions.length === 1 ? ' hidden' : ''}>
<legend>Installments</legend>
${options}
</fieldset>
${fieldError('installments', 'installments-error')}
<div class="coupon">
<label for="coupon_code">Coupon code</label>
<div class="row"><input id="coupon_code" name="coupon_code" maxlength="64" autocomplete="off" value="${escape(form.coupon_code ?? '')}" aria-describedby="coupon_code-error">
<button type="submit" name="action" value="quote" class="secondary">Apply</button></div>
${fieldError('coupon_code', 'coupon_code-error')}
</div>
<dl class="amounts" id="amounts" aria-live="polite">
${amountRows(shown, money)}
</dl>
<label for="payer_name">Name</label>
<input id="payer_name" name="name" autocomplete="name" required maxlength="255" value="${escape(form.name ?? '')}" aria-describedby="payer_name-error">
${fieldError('payer.name', 'payer_name-error')}
<label for="payer_email">E-mail</label>
<input id="payer_email" name="email" type="email" autocomplete="email" required maxlength="254" value="${escape(form.email ?? '')}" aria-describedby="payer_email-error">
${fieldError('payer.email', 'payer_email-error')}
${link.payerFields.includes('tax_id') ? `<label for="payer_tax_id">CPF or CNPJ</label>
<input id="payer_tax_id" name="tax_id" inputmode="numeric" autocomplete="off" required maxlength="18" value="${escape(form.tax_id ?? '')}" aria-describedby="payer_tax_id-error">
${fieldError('payer.tax_id', 'payer_tax_id-error')}` : ''}
${link.paymentMethods.length > 0 ? `<fieldset class="methods"><legend>Pay with</legend>
${link.paymentMethods.map((m, k) => `<label><input type="radio" name="payment_method" value="${escape(m)}"${(form.payment_method ?? link.paymentMethods[0]) === m ? ' checked' : ''}${k === 0 ? ' aria-describedby="payment_method-error"' : ''}> ${escape(METHOD_NAMES[m] ?? m)}</label>`).join('\n')}
</fieldset>
${fieldError('payment_method', 'payment_method-error')}` : ''}
<button type="submit" name="action" value="pay" class="pay">Pay</button>
</form>`;
}

/** A link's products with their prices, as the payment page and the receipt list them. */
function productList(products: Link['products']): string {
  if (products.length === 0) return '';
  return `<ul class="products">${products.map((p) => `<li><span>${escape(p.name)}</span> <span>${escape(formatMoney(p.price, p.currency))}</span></li>`).join('')}</ul>`;
}

/** The subtotal, discount (with the coupon's code once a checkout holds one), interest and total, each marked for pay.js and tests. */
function amountRows(amounts: { subtotal: number; discount: number; interest: number; total: number }, money: (n: number) => string, couponCode?: string): string {
  return `<div><dt>Subtotal</dt><dd data-amount="subtotal">${money(amounts.subtotal)}</dd></div>
<div><dt>Discount${couponCode ? ` (${escape(couponCode)})` : ''}</dt><dd data-amount="discount">${money(amounts.discount)}</dd></div>
<div><dt>Interest</dt><dd data-amount="interest">${money(amounts.interest)}</dd></div>
<div class="total"><dt>Total</dt><dd data-amount="total">${money(amounts.total)}</dd></div>`;
}

/** The first characters of the checkout id: enough to find the payment (the merchant's `GET /payment-transactions?search=`), too few to open the checkout. */
const receiptReference = (checkoutId: string) => checkoutId.slice(0, 12);

/** What a receipt shows: what was bought, the amounts, each installment or charge with its date, when, and a reference to quote. */
function receiptBody(c: Receipt): string {
  const money = (n: number) => escape(formatMoney(n, c.currency));
  const when = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(c.createdAt));
  const rows = c.schedule
    .map((s) => `<tr><td>${s.number}</td><td><time datetime="${escape(s.dueDate)}">${escape(s.dueDate)}</time></td><td data-installment="${s.number}">${money(s.amount)}</td></tr>`)
    .join('\n');
  // A recurring link's schedule lists its charges; an installment plan its installments.
  const caption = c.installments > 1 ? `${c.installments} installments` : c.schedule.length > 1 ? 'Charges' : 'Payment';
  return `<section class="receipt" aria-labelledby="receipt-title">
<h2 id="receipt-title">Receipt</h2>
<dl class="facts">
<div><dt>Reference</dt><dd data-receipt="reference">${escape(receiptReference(c.checkoutId))}</dd></div>
<div><dt>Date</dt><dd data-receipt="date"><time datetime="${escape(c.createdAt)}">${escape(when)} UTC</time></dd></div>
</dl>
${productList(c.paymentLink.products)}
<dl class="amounts">
${amountRows(c, money, c.coupon?.code)}
</dl>
<table class="schedule">
<caption>${caption}</caption>
<thead><tr><th scope="col">#</th><th scope="col">Due</th><th scope="col">Amount</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</section>`;
}
