import { routes } from '../../rest/route.js';

/** A link as its payer sees it (the page reads the same fields). */
export const PUBLIC_LINK_FIELDS = `publicToken name description currency subtotal products { name price currency }
  isRecurring intervalUnit intervalCount billingCycles maxInstallments interestRate
  installmentOptions { installments installmentAmount total interest } payerFields paymentMethods`;
const AMOUNTS = `currency subtotal discount total interest installments installmentAmount schedule { number amount dueDate } coupon { code type value }`;
const CHECKOUT = `fragment CheckoutFields on Checkout { checkoutId status ${AMOUNTS} paymentLink { name publicToken } nextAction { type url pix { payload image expiresAt } } }`;

/**
 * The payer's routes (API.md section 7), under /api/v1/public: no key; the public token
 * or the checkout id in the path is the credential (see public-gate.ts).
 */
export const checkoutRoutes = routes(
  {
    method: 'GET',
    path: '/public/payment-links/{publicToken}',
    document: `query ($publicToken: String!) { publicPaymentLink(publicToken: $publicToken) { ${PUBLIC_LINK_FIELDS} } }`,
  },
  {
    method: 'POST',
    path: '/public/payment-links/{publicToken}/quote',
    document: `query ($publicToken: String!, $input: CheckoutQuoteInput!) { checkoutQuote(publicToken: $publicToken, input: $input) { ${AMOUNTS} } }`,
    status: 200,
  },
  {
    method: 'POST',
    path: '/public/payment-links/{publicToken}/checkouts',
    document: `mutation ($publicToken: String!, $input: CreateCheckoutInput!) { createCheckout(publicToken: $publicToken, input: $input) { ...CheckoutFields } } ${CHECKOUT}`,
    omitWhenNull: ['next_action.pix'],
  },
  {
    method: 'GET',
    path: '/public/checkouts/{checkoutId}',
    document: `query ($checkoutId: String!) { checkout(checkoutId: $checkoutId) { ...CheckoutFields } } ${CHECKOUT}`,
    omitWhenNull: ['next_action.pix'],
  },
);
