import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { text } from '../../validation/rules.js';

/** The providers the service has adapters for (API.md section 11); `test` is the built-in one of section 7. */
export const PROVIDERS = ['test', 'stripe', 'asaas'] as const;

/** The provider's own credentials: an object, whose fields its adapter checks (src/payments/providers/<name>/). */
const credentials = z.record(z.string(), z.unknown());

const fields = {
  name: text(255),
  provider: z.enum(PROVIDERS),
  credentials: credentials.optional(),
};

/** Real providers need credentials; the test provider takes none. */
const credentialsFitProvider = (input: { provider?: string; credentials?: unknown }, ctx: z.RefinementCtx) => {
  if (input.provider === 'test' && input.credentials !== undefined) ctx.addIssue({ code: 'custom', path: ['credentials'], message: 'The :attribute field is prohibited for the test provider.' });
  if (input.provider !== undefined && input.provider !== 'test' && input.credentials === undefined) ctx.addIssue({ code: 'custom', path: ['credentials'], message: 'The :attribute field is required.' });
};

export const CreatePaymentProviderAccountInput = z.object(fields).superRefine(credentialsFitProvider);
/** A provider changed on update brings its credentials; credentials alone replace the account's. */
export const UpdatePaymentProviderAccountInput = z.object(fields).partial().superRefine(credentialsFitProvider);
/** The list's sorting (API.md section 8). */
export const PAYMENT_PROVIDER_ACCOUNT_LIST = listSpec('payment-provider-accounts', 'PaymentProviderAccount');

export const PaymentProviderAccountListArgs = z.object({ ...listRules });
