import { z } from 'zod';
import { email, text } from '../../validation/rules.js';

/** The most installments a link can offer (API.md: max_installments 1..48). */
const installments = z.number().int().min(1).max(48).default(1);
// Coupon codes are 1..64 of A-Z a-z 0-9 _ -; anything else cannot name one, and is "not valid" like an unknown code.
const couponCode = z.string().max(64).optional();

export const CheckoutQuoteInput = z.object({ installments, couponCode });

export const CreateCheckoutInput = z.object({
  installments,
  couponCode,
  payer: z.object({ name: text(255), email: email() }),
});
