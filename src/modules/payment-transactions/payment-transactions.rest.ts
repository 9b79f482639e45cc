import { exportRoute, listDocument, routes } from '../../rest/route.js';
import { PAYMENT_TRANSACTION_LIST } from './payment-transactions.input.js';

const EVENT = 'fragment PaymentTransactionEventFields on PaymentTransactionEvent { id type status providerReference payload occurredAt }';

const TRANSACTION = `fragment PaymentTransactionFields on PaymentTransaction {
  id status providerReference
  providerAccount { id name }
  paymentLink { id publicToken name }
  amount amountRefunded currency metadata createdAt
  dispute { status amount reason openedAt closedAt }
  events: latestEvents { ...PaymentTransactionEventFields }
}
${EVENT}`;

/** Ingestion answers 201 when it stored something, 200 when the delivery was already known. */
const createdOr200 = (created: boolean) => (created ? 201 : 200);

export const paymentTransactionRoutes = routes(
  {
    method: 'GET',
    path: '/payment-transactions',
    document: `${listDocument(PAYMENT_TRANSACTION_LIST, 'paymentTransactions', 'PaymentTransactionFilter', '...PaymentTransactionFields')} ${TRANSACTION}`,
  },
  // Declared before /payment-transactions/{id}, and literal segments win anyway.
  exportRoute(PAYMENT_TRANSACTION_LIST, 'paymentTransactions', 'PaymentTransactionFilter', '...PaymentTransactionFields', TRANSACTION),
  { method: 'GET', path: '/payment-transactions/{id}', document: `query ($id: ID!) { paymentTransaction(id: $id) { ...PaymentTransactionFields } } ${TRANSACTION}` },
  {
    method: 'POST',
    path: '/payment-transactions',
    document: `mutation ($input: RecordPaymentTransactionInput!) { recordPaymentTransaction(input: $input) { created transaction { ...PaymentTransactionFields } } } ${TRANSACTION}`,
    status: (data: { recordPaymentTransaction: { created: boolean } }) => createdOr200(data.recordPaymentTransaction.created),
    unwrap: (data: { recordPaymentTransaction: { transaction: unknown } }) => data.recordPaymentTransaction.transaction,
  },
  {
    method: 'POST',
    path: '/payment-transactions/{id}/events',
    document: `mutation ($id: ID!, $input: AppendPaymentTransactionEventInput!) {
      appendPaymentTransactionEvent(transactionId: $id, input: $input) { created event { ...PaymentTransactionEventFields } }
    } ${EVENT}`,
    status: (data: { appendPaymentTransactionEvent: { created: boolean } }) => createdOr200(data.appendPaymentTransactionEvent.created),
    unwrap: (data: { appendPaymentTransactionEvent: { event: unknown } }) => data.appendPaymentTransactionEvent.event,
  },
);

/** The providers' door (no key: the body is signed with the account's webhook secret, checked before the route runs). */
export const providerWebhookRoutes = routes({
  method: 'POST',
  path: '/provider-webhooks/{accountId}',
  document: `mutation ($accountId: ID!, $input: ProviderEventInput!) {
    recordProviderEvent(accountId: $accountId, input: $input) { created event { ...PaymentTransactionEventFields } }
  } ${EVENT}`,
  status: (data: { recordProviderEvent: { created: boolean } }) => createdOr200(data.recordProviderEvent.created),
  unwrap: (data: { recordProviderEvent: { event: unknown } }) => data.recordProviderEvent.event,
});
