import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { text } from '../../validation/rules.js';

const fields = {
  name: text(255),
  // An integration's identifier (`stripe`, `mercadopago`): lower case, so one provider has one spelling.
  provider: z
    .string()
    .trim()
    .min(1)
    .max(32)
    .regex(/^[a-z][a-z0-9_-]*$/, { message: 'The :attribute field must start with a letter and hold only lower-case letters, digits, - and _.' }),
};

export const CreatePaymentProviderAccountInput = z.object(fields);
export const UpdatePaymentProviderAccountInput = z.object(fields).partial();
/** The list's sorting (API.md section 8). */
export const PAYMENT_PROVIDER_ACCOUNT_LIST = listSpec('payment-provider-accounts', 'PaymentProviderAccount');

export const PaymentProviderAccountListArgs = z.object({ ...listRules });
