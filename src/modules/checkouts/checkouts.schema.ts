import { randomBytes } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { atomically } from '../../db/locks.js';
import { searchText } from '../../db/search.js';
import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import type { Context } from '../../graphql/context.js';
import { ErrorCode, invalidField } from '../../graphql/errors.js';
import { inputTypeFrom } from '../../graphql/inputs.js';
import { type Minor, type Quote, exactDecimal, fromMinor, installmentPlans, linkSubtotal, quote } from '../../payments/money.js';
import { type NextAction, adapterOf, isRemote, openCredentials } from '../../payments/providers.js';
import { brazilianTaxId } from '../../validation/tax-id.js';
import { logError } from '../../log.js';
import { type StoredPayer, continueUrl, startProviderCheckout } from './provider-checkout.js';
import { parseInput } from '../../validation/parse.js';
import { contactForPayer } from '../contacts/contacts.schema.js';
import { CheckoutQuoteInput, CreateCheckoutInput } from './checkouts.input.js';
import { CHECKOUT_NOT_FOUND, LINK_NOT_FOUND } from './public-gate.js';
import { redeemable, takeRedemption } from './redemptions.js';

const COUPON_NOT_VALID = 'The coupon is not valid.';
const cannotBePaid = () => new GraphQLError('This payment link cannot be paid.', { extensions: { code: ErrorCode.BadUserInput } });
const cannotBePaidOnline = () => new GraphQLError('This payment link cannot be paid online.', { extensions: { code: ErrorCode.BadUserInput } });
const cannotBePaidWithProvider = (message: string) => new GraphQLError(message, { extensions: { code: ErrorCode.BadUserInput } });
/** At least 32 URL-safe random characters (43 here), as the payer's checkout_id. */
const newCheckoutToken = () => randomBytes(32).toString('base64url');

// --- What a payer sees: never an internal id (workspace, account, coupon, product, transaction).

interface ShownAmounts {
  currency: string;
  subtotal: number;
  discount: number;
  total: number;
  interest: number;
  installments: number;
  installmentAmount: number;
  schedule: { number: number; amount: number; dueDate: string }[];
  coupon: { code: string; type: string; value: number } | null;
}

/** The amounts as a checkout's transaction keeps them (`metadata.checkout.amounts`): snake_case, as every REST answer is (API.md section 2). */
type StoredAmounts = Omit<ShownAmounts, 'installmentAmount' | 'schedule'> & {
  installment_amount: number;
  schedule: { number: number; amount: number; due_date: string }[];
};

const storedAmounts = (a: ShownAmounts): StoredAmounts => ({
  currency: a.currency,
  subtotal: a.subtotal,
  discount: a.discount,
  total: a.total,
  interest: a.interest,
  installments: a.installments,
  installment_amount: a.installmentAmount,
  schedule: a.schedule.map((s) => ({ number: s.number, amount: s.amount, due_date: s.dueDate })),
  coupon: a.coupon,
});

const PublicProduct = builder.objectRef<{ name: string; price: number; currency: string }>('PublicProduct').implement({
  fields: (t) => ({ name: t.exposeString('name'), price: t.exposeFloat('price'), currency: t.exposeString('currency') }),
});

type ShownOption = { installments: number; installmentAmount: number; total: number; interest: number };

const InstallmentOption = builder
  .objectRef<ShownOption>('InstallmentOption')
  .implement({
    description: 'Paying the link in `installments` monthly payments: `installmentAmount` is the last one (the first may carry the remainder).',
    fields: (t) => ({
      installments: t.exposeInt('installments'),
      installmentAmount: t.exposeFloat('installmentAmount'),
      total: t.exposeFloat('total'),
      interest: t.exposeFloat('interest'),
    }),
  });

interface ShownLink {
  publicToken: string;
  name: string;
  description: string | null;
  currency: string;
  subtotal: number;
  products: { name: string; price: number; currency: string }[];
  isRecurring: boolean;
  intervalUnit: string;
  intervalCount: number;
  billingCycles: number | null;
  maxInstallments: number;
  interestRate: number;
  installmentOptions: ShownOption[];
  payerFields: string[];
  paymentMethods: string[];
}

const PublicPaymentLink = builder.objectRef<ShownLink>('PublicPaymentLink').implement({
  description: 'An active payment link as its payer sees it (GET /api/v1/public/payment-links/{public_token}).',
  fields: (t) => ({
    publicToken: t.exposeString('publicToken'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    currency: t.exposeString('currency'),
    subtotal: t.exposeFloat('subtotal'),
    products: t.field({ type: [PublicProduct], resolve: (l) => l.products }),
    isRecurring: t.exposeBoolean('isRecurring'),
    intervalUnit: t.exposeString('intervalUnit'),
    intervalCount: t.exposeInt('intervalCount'),
    billingCycles: t.exposeInt('billingCycles', { nullable: true }),
    maxInstallments: t.exposeInt('maxInstallments'),
    interestRate: t.exposeFloat('interestRate'),
    installmentOptions: t.field({ type: [InstallmentOption], resolve: (l) => l.installmentOptions }),
    payerFields: t.stringList({ description: 'What the payer gives: `name`, `email`, and `tax_id` (a CPF or CNPJ) when the provider needs it.', resolve: (l) => l.payerFields }),
    paymentMethods: t.stringList({ description: 'The methods the payer chooses among (`pix`, `boleto`, `card`); empty: the provider offers its own.', resolve: (l) => l.paymentMethods }),
  }),
});

const ScheduleEntry = builder.objectRef<ShownAmounts['schedule'][number]>('CheckoutScheduleEntry').implement({
  fields: (t) => ({ number: t.exposeInt('number'), amount: t.exposeFloat('amount'), dueDate: t.exposeString('dueDate', { description: 'YYYY-MM-DD (UTC).' }) }),
});

const QuotedCoupon = builder.objectRef<NonNullable<ShownAmounts['coupon']>>('QuotedCoupon').implement({
  fields: (t) => ({ code: t.exposeString('code'), type: t.exposeString('type'), value: t.exposeFloat('value') }),
});

const amountFields = (t: any) => ({
  currency: t.exposeString('currency'),
  subtotal: t.exposeFloat('subtotal'),
  discount: t.exposeFloat('discount'),
  total: t.exposeFloat('total', { description: 'What the payer pays (at each charge, for a recurring link).' }),
  interest: t.exposeFloat('interest'),
  installments: t.exposeInt('installments'),
  installmentAmount: t.exposeFloat('installmentAmount', { description: "The last installment's amount." }),
  schedule: t.field({ type: [ScheduleEntry], resolve: (q: ShownAmounts) => q.schedule }),
  coupon: t.field({ type: QuotedCoupon, nullable: true, resolve: (q: ShownAmounts) => q.coupon }),
});

/** A quote, and what each of the link's choices costs with the same coupon (the payer's page shows them all). */
type QuotedAmounts = ShownAmounts & { installmentOptions: ShownOption[] };

const CheckoutQuote = builder.objectRef<QuotedAmounts>('CheckoutQuote').implement({
  fields: (t) => ({
    ...amountFields(t),
    installmentOptions: t.field({
      type: [InstallmentOption],
      description: "Every installment choice of the link, priced after this quote's coupon (as `PublicPaymentLink.installmentOptions` is before any).",
      resolve: (q) => q.installmentOptions,
    }),
  }),
});

const PixCode = builder.objectRef<{ payload: string; image: string; expiresAt: string | null }>('CheckoutPixCode').implement({
  fields: (t) => ({
    payload: t.exposeString('payload', { description: 'The copy-and-paste code.' }),
    image: t.exposeString('image', { description: 'The QR code, as a data: URL of a PNG.' }),
    expiresAt: t.exposeString('expiresAt', { nullable: true }),
  }),
});

const NextActionType = builder.objectRef<NextAction>('CheckoutNextAction').implement({
  fields: (t) => ({
    type: t.exposeString('type', { description: '`redirect`: send the payer to `url`; `pix`: show the Pix code (or send the payer to `url`, the provider\'s page).' }),
    url: t.exposeString('url'),
    pix: t.field({ type: PixCode, nullable: true, resolve: (a) => (a.type === 'pix' ? a.pix : null) }),
  }),
});

interface ShownCheckout extends ShownAmounts {
  checkoutId: string;
  status: string;
  createdAt: Date;
  /** `id` is never shown: the products are read by it only when asked for (the receipt page). */
  paymentLink: { id: string; name: string; publicToken: string };
  /** The payer's next step, once known (a real provider's after the commit: `nextAction` waits for it). */
  nextAction: NextAction | null;
  remote: boolean;
}

/** A checkout's next step at a real provider: the one made, the one being made right after this request's commit, or this service's URL that makes it. */
async function nextActionOf(ctx: Context, c: ShownCheckout): Promise<NextAction | null> {
  if (!c.remote || c.nextAction || c.status !== 'pending') return c.nextAction;
  // Made after the commit (the answer waited for it), unless an Idempotency-Key's transaction still holds the checkout.
  const made = await ctx.db.checkout.findUnique({ where: { token: c.checkoutId }, select: { nextAction: true } });
  if (made?.nextAction) return made.nextAction as unknown as NextAction;
  const base = ctx.settings.payments.publicBaseUrl ?? ctx.origin;
  return base ? { type: 'redirect', url: continueUrl(base, c.checkoutId) } : null;
}

const PublicCheckout = builder.objectRef<ShownCheckout>('Checkout').implement({
  description: "A payer's checkout of a payment link: its status is its payment transaction's.",
  fields: (t) => ({
    checkoutId: t.exposeString('checkoutId'),
    status: t.exposeString('status'),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the payer started the checkout.' }),
    ...amountFields(t),
    paymentLink: t.field({
      type: builder.objectRef<ShownCheckout['paymentLink']>('CheckoutPaymentLink').implement({
        fields: (l) => ({
          name: l.exposeString('name'),
          publicToken: l.exposeString('publicToken'),
          products: l.field({
            type: [PublicProduct],
            description: "The link's products, as its page shows them.",
            resolve: async (p, _args, ctx) => {
              const link = await ctx.db.paymentLink.findUnique({ where: { id: p.id }, select: PRODUCTS_SELECT });
              return (link?.products ?? []).map((product) => ({ name: product.name, price: product.price.toNumber(), currency: product.currency }));
            },
          }),
        }),
      }),
      resolve: (c) => c.paymentLink,
    }),
    nextAction: t.field({ type: NextActionType, nullable: true, description: 'Where the payer goes next, while the checkout is pending.', resolve: (c, _args, ctx) => nextActionOf(ctx, c) }),
  }),
});

const CheckoutQuoteInputType = inputTypeFrom('CheckoutQuoteInput', CheckoutQuoteInput, (t) => ({
  installments: t.int({ description: '1..the link\'s max_installments (1 for a recurring link); default 1.' }),
  couponCode: t.string({ description: 'Case-insensitive.' }),
}));

const CheckoutPayerInput = builder.inputType('CheckoutPayerInput', {
  fields: (t) => ({ name: t.string(), email: t.string(), taxId: t.string({ description: "A CPF or CNPJ: required when the link's provider asks for it (`payer_fields`)." }) }),
});

const CreateCheckoutInputType = inputTypeFrom('CreateCheckoutInput', CreateCheckoutInput, (t) => ({
  installments: t.int({ description: "1..the link's max_installments (1 for a recurring link); default 1." }),
  couponCode: t.string({ description: 'Case-insensitive.' }),
  payer: t.field({ type: CheckoutPayerInput, description: 'Becomes a contact (by e-mail; an existing one is not changed).' }),
  paymentMethod: t.string({ description: "`pix`, `boleto` or `card`, when the link's provider offers a choice (`payment_methods`); none: the payer chooses at the provider." }),
}));

// --- Reading a link as the checkout needs it.

const PRODUCTS_SELECT = { products: { select: { name: true, price: true, currency: true }, orderBy: { id: 'asc' } } } as const;

const LINK_SELECT = {
  id: true, publicToken: true, name: true, description: true, amount: true, currency: true, isActive: true,
  maxInstallments: true, interestRate: true, isRecurring: true, intervalUnit: true, intervalCount: true, billingCycles: true,
  providerAccountId: true, providerAccount: { select: { provider: true, sealedCredentials: true } },
  ...PRODUCTS_SELECT,
} as const;

/** An active link of the caller's workspace by its public token (a public caller's gate found it; a key's caller may name another workspace's: 404 alike). */
async function activeLink(ctx: Context, publicToken: string) {
  const link = await ctx.db.paymentLink.findUnique({ where: { publicToken }, select: LINK_SELECT });
  if (!link?.isActive) throw new GraphQLError(LINK_NOT_FOUND, { extensions: { code: ErrorCode.NotFound } });
  return link;
}
type ActiveLink = Awaited<ReturnType<typeof activeLink>>;

/** What each installment choice of `link` costs when `principal` (the subtotal, less any coupon) is paid. */
function installmentOptions(link: ActiveLink, principal: Minor): ShownOption[] {
  const money = (minor: bigint) => fromMinor(minor, link.currency);
  return installmentPlans(principal, link.isRecurring ? 1 : link.maxInstallments, link.interestRate).map((plan) => ({
    installments: plan.installments,
    installmentAmount: money(plan.installmentAmount),
    total: money(plan.total),
    interest: money(plan.interest),
  }));
}

function showLink(ctx: Context, link: ActiveLink): ShownLink {
  const adapter = adapterOf(ctx.settings.payments, link.providerAccount.provider);
  const subtotal = linkSubtotal(link);
  if (subtotal === undefined) throw cannotBePaid();
  const money = (minor: bigint) => fromMinor(minor, link.currency);
  const options = installmentOptions(link, subtotal);
  return {
    publicToken: link.publicToken,
    name: link.name,
    description: link.description,
    currency: link.currency,
    subtotal: money(subtotal),
    products: link.products.map((p) => ({ name: p.name, price: p.price.toNumber(), currency: p.currency })),
    isRecurring: link.isRecurring,
    intervalUnit: link.intervalUnit,
    intervalCount: link.intervalCount,
    billingCycles: link.billingCycles,
    maxInstallments: link.maxInstallments,
    interestRate: link.interestRate.toNumber(),
    installmentOptions: options,
    payerFields: ['name', 'email', ...(adapter?.payerFields ?? [])],
    paymentMethods: [...(adapter?.paymentMethods ?? [])],
  };
}

/** The coupon a code names for this link, if it may be redeemed now; else 422 on coupon_code, the same for every cause. */
async function couponFor(ctx: Context, link: ActiveLink, code: string | undefined, now: Date) {
  if (code === undefined) return null;
  const coupon = await ctx.db.paymentCoupon.findUnique({
    where: { workspaceId_codeKey: { workspaceId: ctx.workspace.id, codeKey: code.trim().toLowerCase() } },
    select: { id: true, code: true, type: true, value: true, paymentLinkId: true, isActive: true, expiresAt: true, maxRedemptions: true, timesRedeemed: true },
  });
  if (!coupon || coupon.paymentLinkId !== link.id || !redeemable(coupon, now)) throw invalidField('coupon_code', COUPON_NOT_VALID);
  return coupon;
}

/** The amounts of paying `link` in `installments` with `coupon`; 422 on installments outside the link's choices. */
function amounts(link: ActiveLink, installments: number, coupon: { code: string; type: string; value: { toNumber(): number } } | null, now: Date): ShownAmounts & { quote: Quote } {
  const most = link.isRecurring ? 1 : link.maxInstallments;
  if (installments > most) throw invalidField('installments', most === 1 ? 'The installments field must be 1.' : `The installments field must be between 1 and ${most}.`);
  const quoted = quote(link, { installments, coupon: coupon as never, today: now });
  if (!quoted) throw cannotBePaid();
  const money = (minor: bigint) => fromMinor(minor, link.currency);
  return {
    quote: quoted,
    currency: link.currency,
    subtotal: money(quoted.subtotal),
    discount: money(quoted.discount),
    total: money(quoted.total),
    interest: money(quoted.interest),
    installments: quoted.installments,
    installmentAmount: money(quoted.installmentAmount),
    schedule: quoted.schedule.map((s) => ({ number: s.number, amount: money(s.amount), dueDate: s.due_date })),
    coupon: coupon && { code: coupon.code, type: coupon.type, value: coupon.value.toNumber() },
  };
}

/** A quote's amounts as the checkout's exact decimal columns, from minor units. */
function checkoutAmounts(q: Quote) {
  const exact = (minor: Minor) => exactDecimal(minor, q.currency);
  return {
    currency: q.currency,
    subtotal: exact(q.subtotal),
    discount: exact(q.discount),
    interest: exact(q.interest),
    total: exact(q.total),
    installments: q.installments,
    installmentAmount: exact(q.installmentAmount),
  };
}

/** `name` as first and last name: the last word is the last name ("Ada King Lovelace" → "Ada King", "Lovelace"). */
function splitName(name: string): { firstName: string; lastName: string | null } {
  const at = name.lastIndexOf(' ');
  return at > 0 ? { firstName: name.slice(0, at).trim(), lastName: name.slice(at + 1) } : { firstName: name, lastName: null };
}

/** The stored checkout, as the payer sees it. */
async function showCheckout(ctx: Context, token: string): Promise<ShownCheckout> {
  const checkout = await ctx.db.checkout.findUnique({
    where: { token },
    select: {
      token: true,
      createdAt: true,
      paymentLink: { select: { id: true, name: true, publicToken: true, providerAccount: { select: { provider: true } } } },
      currency: true, subtotal: true, discount: true, interest: true, total: true, installments: true, installmentAmount: true,
      nextAction: true,
      transaction: { select: { status: true, metadata: true } },
    },
  });
  if (!checkout) throw new GraphQLError(CHECKOUT_NOT_FOUND, { extensions: { code: ErrorCode.NotFound } });
  // The amounts are the checkout's own exact columns; the schedule and the coupon as quoted are kept with the transaction.
  const stored = (checkout.transaction.metadata as unknown as { checkout: { amounts: StoredAmounts } }).checkout.amounts;
  const schedule = stored.schedule.map((s) => ({ number: s.number, amount: s.amount, dueDate: s.due_date }));
  const { coupon } = stored;
  const shown: ShownAmounts = {
    currency: checkout.currency,
    subtotal: checkout.subtotal.toNumber(),
    discount: checkout.discount.toNumber(),
    interest: checkout.interest.toNumber(),
    total: checkout.total.toNumber(),
    installments: checkout.installments,
    installmentAmount: checkout.installmentAmount.toNumber(),
    schedule,
    coupon,
  };
  const adapter = adapterOf(ctx.settings.payments, checkout.paymentLink.providerAccount.provider);
  const pending = checkout.transaction.status === 'pending';
  const remote = isRemote(adapter);
  const testStep = pending && adapter && !remote && ctx.origin ? { type: 'redirect' as const, url: `${ctx.origin}/pay/checkouts/${checkout.token}/test-provider` } : null;
  return {
    ...shown,
    checkoutId: checkout.token,
    status: checkout.transaction.status,
    createdAt: checkout.createdAt,
    paymentLink: { id: checkout.paymentLink.id, name: checkout.paymentLink.name, publicToken: checkout.paymentLink.publicToken },
    nextAction: remote ? (pending ? ((checkout.nextAction as unknown as NextAction | null) ?? null) : null) : testStep,
    remote,
  };
}

builder.queryFields((t) => ({
  publicPaymentLink: t.field({
    type: PublicPaymentLink,
    description: 'An active payment link by its public token, with its amounts and installment options (no key needed through the public API).',
    args: { publicToken: t.arg.string({ required: true }) },
    resolve: async (_root, { publicToken }, ctx) => showLink(ctx, await activeLink(ctx, publicToken)),
  }),
  checkoutQuote: t.field({
    type: CheckoutQuote,
    description: 'What paying the link in this many installments, with this coupon, costs, and when.',
    args: { publicToken: t.arg.string({ required: true }), input: t.arg({ type: CheckoutQuoteInputType, required: true }) },
    resolve: async (_root, { publicToken, input }, ctx) => {
      const link = await activeLink(ctx, publicToken);
      const { installments, couponCode } = parseInput(CheckoutQuoteInput, input, ctx);
      const now = new Date();
      const shown = amounts(link, installments, await couponFor(ctx, link, couponCode, now), now);
      return { ...shown, installmentOptions: installmentOptions(link, shown.quote.principal) };
    },
  }),
  checkout: t.field({
    type: PublicCheckout,
    description: 'A checkout by its checkout_id.',
    args: { checkoutId: t.arg.string({ required: true }) },
    resolve: (_root, { checkoutId }, ctx) => showCheckout(ctx, checkoutId),
  }),
}));

builder.mutationFields((t) => ({
  createCheckout: t.field({
    type: PublicCheckout,
    description:
      'Starts paying a link: in one transaction, a pending payment transaction, the payer as a contact (by e-mail) and one redemption of the coupon, which never passes its max_redemptions.',
    args: { publicToken: t.arg.string({ required: true }), input: t.arg({ type: CreateCheckoutInputType, required: true }) },
    resolve: async (_root, { publicToken, input }, ctx) => {
      const link = await activeLink(ctx, publicToken);
      const { installments, couponCode, payer, paymentMethod } = parseInput(CreateCheckoutInput, input, ctx);
      const now = new Date();
      const coupon = await couponFor(ctx, link, couponCode, now);
      const shown = amounts(link, installments, coupon, now);
      const adapter = adapterOf(ctx.settings.payments, link.providerAccount.provider);
      if (!adapter) throw cannotBePaidOnline();
      const unsupported = adapter.unsupported(link);
      if (unsupported) throw cannotBePaidWithProvider(unsupported);
      if (adapter.chargeable && !adapter.chargeable(link.currency, [shown.quote.total, ...shown.quote.schedule.map((s) => s.amount)])) throw cannotBePaidOnline();
      const taxId = adapter.payerFields.includes('tax_id') ? brazilianTaxId(payer.taxId ?? '') : undefined;
      if (adapter.payerFields.includes('tax_id') && !taxId) throw invalidField('payer.tax_id', 'Enter a valid CPF or CNPJ.');
      if (paymentMethod && !adapter.paymentMethods.includes(paymentMethod)) throw invalidField('payment_method', 'The selected payment method is invalid.');
      if (isRemote(adapter)) {
        try {
          openCredentials(ctx.settings.payments, link.providerAccount.sealedCredentials);
        } catch (error) {
          logError(ctx.requestId, error, `the credentials of payment provider account ${link.providerAccountId}`);
          throw cannotBePaidOnline();
        }
      }
      const storedPayer: StoredPayer = { name: payer.name, email: payer.email, ...(taxId ? { tax_id: taxId } : {}) };
      const token = newCheckoutToken();
      await atomically(ctx.db, async (tx) => {
        // The contended row first, so a checkout that finds the coupon used up writes nothing.
        if (coupon && !(await takeRedemption(tx, coupon.id, now))) throw invalidField('coupon_code', COUPON_NOT_VALID);
        const contactId = await contactForPayer({ ...ctx, db: tx as unknown as Context['db'] }, { ...splitName(payer.name), email: payer.email });
        const stored = storedAmounts(shown);
        const transaction = await tx.paymentTransaction.create({
          data: {
            ...newRow(ctx.workspace.id),
            status: 'pending',
            providerReference: `checkout_${token}`,
            referenceSearch: searchText(`checkout_${token}`),
            providerAccountId: link.providerAccountId,
            paymentLinkId: link.id,
            contactId,
            amount: exactDecimal(shown.quote.total, link.currency),
            currency: link.currency,
            metadata: { checkout: { amounts: stored, payer: { ...storedPayer }, contact_id: contactId, ...(paymentMethod ? { payment_method: paymentMethod } : {}) } },
          },
          select: { id: true },
        });
        const checkoutRow = newRow(ctx.workspace.id);
        await tx.checkout.create({
          data: {
            ...checkoutRow,
            token,
            paymentLinkId: link.id,
            transactionId: transaction.id,
            couponId: coupon?.id ?? null,
            expiresAt: new Date(now.getTime() + ctx.settings.checkoutExpiryMinutes * 60_000),
            // A real provider's silence is looked into after PROVIDER_RECONCILE_SECONDS.
            reconcileAt: isRemote(adapter) ? new Date(now.getTime() + ctx.settings.payments.reconcileMs) : null,
            ...checkoutAmounts(shown.quote),
          },
          select: { id: true },
        });
        // The checkout's own transaction is charge 1 of its plan (`checkout_id` lists its charges).
        await tx.paymentTransaction.update({ where: { id: transaction.id }, data: { planCheckoutId: checkoutRow.id, planCharge: 1 }, select: { id: true } });
      });
      // The provider's object is made once this checkout has committed, outside any transaction; the answer's next step waits for it.
      if (isRemote(adapter)) {
        const awaited = ctx.awaitedAfterCommit;
        const { dbAfterCommit, settings, origin, requestId } = ctx;
        ctx.afterCommit!(() => awaited?.push(startProviderCheckout(dbAfterCommit, settings, token, origin, requestId)));
      }
      return showCheckout(ctx, token);
    },
  }),
}));
