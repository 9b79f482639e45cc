import { listDocument, routes } from '../../rest/route.js';
import { PAYMENT_COUPON_LIST } from './payment-coupons.input.js';

const COUPON = `fragment PaymentCouponFields on PaymentCoupon {
  id code type value maxRedemptions isActive expiresAt timesRedeemed createdAt paymentLinkId paymentLink { id name }
}`;

export const paymentCouponRoutes = routes(
  {
    method: 'GET',
    path: '/payment-coupons',
    document: `${listDocument(PAYMENT_COUPON_LIST, 'paymentCoupons', 'PaymentCouponFilter', '...PaymentCouponFields')} ${COUPON}`,
  },
  { method: 'GET', path: '/payment-coupons/{id}', document: `query ($id: ID!) { paymentCoupon(id: $id) { ...PaymentCouponFields } } ${COUPON}` },
  { method: 'POST', path: '/payment-coupons', document: `mutation ($input: CreatePaymentCouponInput!) { createPaymentCoupon(input: $input) { ...PaymentCouponFields } } ${COUPON}` },
  { method: 'PUT', path: '/payment-coupons/{id}', document: `mutation ($id: ID!, $input: UpdatePaymentCouponInput!) { updatePaymentCoupon(id: $id, input: $input) { ...PaymentCouponFields } } ${COUPON}` },
  { method: 'DELETE', path: '/payment-coupons/{id}', document: 'mutation ($id: ID!) { deletePaymentCoupon(id: $id) }' },
);
