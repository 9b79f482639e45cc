import { listDocument, routes } from '../../rest/route.js';
import { PAYMENT_LINK_LIST } from './payment-links.input.js';

const LINK = `fragment PaymentLinkFields on PaymentLink {
  id publicToken name description amount currency isActive maxInstallments interestRate
  isRecurring intervalUnit intervalCount billingCycles paymentProviderAccountId
  providerAccount { id name }
  products(perPage: 100) { id name price priceMinor currency }
  createdAt
}`;

export const paymentLinkRoutes = routes(
  {
    method: 'GET',
    path: '/payment-links',
    document: `${listDocument(PAYMENT_LINK_LIST, 'paymentLinks', 'PaymentLinkFilter', '...PaymentLinkFields')} ${LINK}`,
  },
  { method: 'GET', path: '/payment-links/{id}', document: `query ($id: ID!) { paymentLink(id: $id) { ...PaymentLinkFields } } ${LINK}` },
  { method: 'POST', path: '/payment-links', document: `mutation ($input: CreatePaymentLinkInput!) { createPaymentLink(input: $input) { ...PaymentLinkFields } } ${LINK}` },
  { method: 'PUT', path: '/payment-links/{id}', document: `mutation ($id: ID!, $input: UpdatePaymentLinkInput!) { updatePaymentLink(id: $id, input: $input) { ...PaymentLinkFields } } ${LINK}` },
  // Actions: POST, but they create nothing, so 200.
  { method: 'POST', path: '/payment-links/{id}/activate', document: `mutation ($id: ID!) { activatePaymentLink(id: $id) { ...PaymentLinkFields } } ${LINK}`, status: 200 },
  { method: 'POST', path: '/payment-links/{id}/deactivate', document: `mutation ($id: ID!) { deactivatePaymentLink(id: $id) { ...PaymentLinkFields } } ${LINK}`, status: 200 },
);
