import { z } from 'zod';
import { email, text } from '../../validation/rules.js';

/** The most installments a link can offer (API.md: max_installments 1..48). */
const installments = z.number().int().min(1).max(48).default(1);
// Coupon codes are 1..64 of A-Z a-z 0-9 _ -; anything else cannot name one, and is "not valid" like an unknown code.
const couponCode = z.string().max(64).optional();

export const CheckoutQuoteInput = z.object({ installments, couponCode });

/** How an Asaas payer pays (API.md section 11); none: the payer chooses on Asaas's page. */
export const PAYMENT_METHODS = ['pix', 'boleto', 'card'] as const;

export const CreateCheckoutInput = z.object({
  installments,
  couponCode,
  // tax_id: a CPF or CNPJ, required (and checked) when the link's provider needs one.
  payer: z.object({ name: text(255), email: email(), taxId: z.string().max(32).optional() }),
  paymentMethod: z.enum(PAYMENT_METHODS).optional(),
});
