import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { decimal, evenAfterFailures } from '../../validation/rules.js';

export const COUPON_TYPES = ['amount', 'percent'] as const;

/** A coupon's code (unique in the workspace, ignoring case: `couponCodeKey`). */
export const couponCode = z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, { message: 'The :attribute field may only contain letters, digits, dashes and underscores.' });

const fields = {
  code: couponCode,
  type: z.enum(COUPON_TYPES),
  value: decimal().refine((v) => v > 0, { message: 'The :attribute field must be greater than 0.' }),
  maxRedemptions: z.number().int().min(1).nullable(),
  isActive: z.boolean(),
  expiresAt: z.date().nullable(),
  paymentLinkId: z.string().min(1).max(64),
};

/** A percentage coupon takes at most 100 (%). */
const percentAtMost100 = <T extends z.ZodType<{ type?: string; value?: number }>>(schema: T) =>
  schema.refine((c) => !(c.type === 'percent' && c.value !== undefined && c.value > 100), {
    message: 'The :attribute field must not be greater than 100 for a percent coupon.',
    path: ['value'],
    ...evenAfterFailures,
  });

export const CreatePaymentCouponInput = percentAtMost100(z.object(fields).partial({ maxRedemptions: true, isActive: true, expiresAt: true }));
/** PUT requires code, type and value (API.md); the rest is partial. */
export const UpdatePaymentCouponInput = percentAtMost100(z.object(fields).partial({ maxRedemptions: true, isActive: true, expiresAt: true, paymentLinkId: true }));

/** The list's sorting (API.md section 8). */
export const PAYMENT_COUPON_LIST = listSpec('payment-coupons', 'PaymentCoupon');

export const PaymentCouponListArgs = z.object({ ...listRules, paymentLinkId: z.string().max(64).optional() });

/** The lower-cased code: uniqueness per workspace ignores case. */
export const couponCodeKey = (code: string) => code.toLowerCase();
