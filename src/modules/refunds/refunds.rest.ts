import { listDocument, routes } from '../../rest/route.js';
import { REFUND_LIST } from './refunds.input.js';

const REFUND = `fragment RefundFields on Refund {
  id paymentTransactionId amount currency reason status failureReason providerReference metadata createdAt updatedAt
}`;

export const refundRoutes = routes(
  { method: 'GET', path: '/refunds', document: `${listDocument(REFUND_LIST, 'refunds', 'RefundFilter', '...RefundFields')} ${REFUND}` },
  { method: 'GET', path: '/refunds/{id}', document: `query ($id: ID!) { refund(id: $id) { ...RefundFields } } ${REFUND}` },
  {
    method: 'POST',
    path: '/payment-transactions/{id}/refunds',
    document: `mutation ($id: ID!, $input: RefundPaymentInput!) { refundPayment(transactionId: $id, input: $input) { refund { ...RefundFields } } } ${REFUND}`,
    unwrap: (data: { refundPayment: { refund: unknown } }) => data.refundPayment.refund,
  },
);
