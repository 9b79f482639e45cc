import { z } from 'zod';
import type { Prisma } from '../../generated/sqlite/client.js';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { currencyCode, decimal, text } from '../../validation/rules.js';

export const PAYMENT_STATUSES = ['pending', 'processing', 'paid', 'failed', 'refunded', 'canceled'] as const;

/** A provider's own id for a transaction or an event (`pi_...`, `evt_...`). */
const providerReference = () => text(255);

/** A JSON object (not an array, not a scalar). */
const jsonObject = () => z.record(z.string(), z.unknown()).transform((object) => object as Prisma.InputJsonObject);

export const RecordPaymentTransactionInput = z.object({
  paymentLinkId: z.string().min(1).max(64),
  // Default: the payment link's account (the resolver fills it).
  paymentProviderAccountId: z.string().min(1).max(64).optional(),
  providerReference: providerReference(),
  amount: decimal(),
  currency: currencyCode(),
  status: z.enum(PAYMENT_STATUSES).default('pending'),
  metadata: jsonObject().default({}),
});

export const AppendPaymentTransactionEventInput = z.object({
  type: text(100),
  status: z.enum(PAYMENT_STATUSES),
  providerReference: providerReference(),
  payload: jsonObject().default({}),
  occurredAt: z.date(),
});

/** The list's sorting (API.md section 8). */
export const PAYMENT_TRANSACTION_LIST = listSpec('payment-transactions', 'PaymentTransaction', ['amount'], '-id');

export const PaymentTransactionListArgs = z.object({
  ...listRules,
  status: z.enum(PAYMENT_STATUSES).optional(),
  search: z.string().max(255).optional(),
  checkoutId: z.string().max(128).optional(),
});

/** A provider's webhook (POST /api/v1/provider-webhooks/{account}): an event, and the provider's reference of its transaction. */
export const ProviderEventInput = AppendPaymentTransactionEventInput.extend({ transactionProviderReference: providerReference() });
