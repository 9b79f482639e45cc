import { z } from 'zod';
import { MAX_PER_PAGE, listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { INTERVAL_UNITS } from '../../payments/money.js';
import { currencyCode, decimal, idList, longText, text } from '../../validation/rules.js';


const fields = {
  name: text(255),
  description: longText().nullable(),
  amount: decimal().nullable(),
  currency: currencyCode(),
  maxInstallments: z.number().int().min(1).max(48),
  // A monthly percentage.
  interestRate: decimal(),
  isRecurring: z.boolean(),
  intervalUnit: z.enum(INTERVAL_UNITS),
  intervalCount: z.number().int().min(1),
  billingCycles: z.number().int().min(1).nullable(),
  paymentProviderAccountId: z.string().min(1).max(64),
  // A link's answer lists its products in full, and lists hold at most 100.
  productIds: idList(MAX_PER_PAGE),
};

/** Defaults apply on create; the currency's default is the workspace's (the resolver fills it). */
export const CreatePaymentLinkInput = z.object(fields).partial({
  description: true,
  amount: true,
  currency: true,
  maxInstallments: true,
  interestRate: true,
  isRecurring: true,
  intervalUnit: true,
  intervalCount: true,
  billingCycles: true,
  productIds: true,
});
export const UpdatePaymentLinkInput = z.object(fields).partial();

/** The list's sorting (API.md section 8). */
export const PAYMENT_LINK_LIST = listSpec('payment-links', 'PaymentLink', ['name']);

export const PaymentLinkListArgs = z.object({
  ...listRules,
  isActive: z.boolean().optional(),
  paymentProviderAccountId: z.string().max(64).optional(),
});
