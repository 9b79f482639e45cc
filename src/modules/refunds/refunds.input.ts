import { z } from 'zod';
import type { Prisma } from '../../generated/sqlite/client.js';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { decimal } from '../../validation/rules.js';

export const REFUND_REASONS = ['requested_by_customer', 'duplicate', 'fraudulent', 'other'] as const;
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;

/** POST /payment-transactions/{id}/refunds (API.md section 11): `amount` defaults to all that remains; its upper bound is the transaction's. */
export const RefundPaymentInput = z.object({
  amount: decimal().refine((amount) => amount > 0, { message: 'The :attribute field must be greater than 0.' }).optional(),
  reason: z.enum(REFUND_REASONS).default('requested_by_customer'),
  metadata: z.record(z.string(), z.unknown()).transform((object) => object as Prisma.InputJsonObject).default({}),
});

/** The list's sorting (API.md section 8). */
export const REFUND_LIST = listSpec('refunds', 'PaymentRefund', ['amount'], 'id', 'Refund');

export const RefundListArgs = z.object({
  ...listRules,
  paymentTransactionId: z.string().max(64).optional(),
  status: z.enum(REFUND_STATUSES).optional(),
});
