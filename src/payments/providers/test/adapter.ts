import type { ProviderAdapter } from '../../providers.js';

/**
 * The built-in `test` provider (API.md section 7): it stands for a real one, as a
 * provider's test mode does. Its next step is a page of the service with Approve and
 * Decline buttons (src/modules/checkouts/pages.ts), and its webhooks are signed by the
 * Standard Webhooks scheme with the account's own secret.
 */
export const testAdapter: ProviderAdapter = {
  provider: 'test',
  payerFields: [],
  paymentMethods: [],
  unsupported: () => undefined,
};
