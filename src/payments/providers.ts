/**
 * Payment provider adapters (API.md section 7; docs/adding-a-provider.md): an account's
 * `provider` picks one. An adapter says where a payer goes once a checkout is created;
 * the provider reports the outcome later, signed, to POST /api/v1/provider-webhooks/{id},
 * and every outcome goes through the one ingestion code of payment transactions.
 */
export interface NextAction {
  type: 'redirect';
  url: string;
}

export interface StartedCheckout {
  /** The checkout's public id (what the payer's URLs carry). */
  checkoutId: string;
  /** The service's origin as the payer reached it. */
  origin: string;
}

export interface ProviderAdapter {
  /** The `provider` value of the accounts it serves. */
  readonly provider: string;
  /**
   * The payer's next step for a checkout just created. Runs inside the checkout's
   * database transaction, so it must not call out: an adapter for a real provider
   * points at a page of the service that creates the provider's payment when the payer
   * arrives, and redirects there.
   */
  nextAction(checkout: StartedCheckout): NextAction;
}

/** The built-in `test` provider: its page (src/modules/checkouts/pages.ts) has Approve and Decline buttons. */
export const testProvider: ProviderAdapter = {
  provider: 'test',
  nextAction: ({ checkoutId, origin }) => ({ type: 'redirect', url: `${origin}/pay/checkouts/${checkoutId}/test-provider` }),
};

const ADAPTERS = new Map<string, ProviderAdapter>([[testProvider.provider, testProvider]]);

/** The adapter of an account's provider; undefined when the service cannot take its payments online. */
export const adapterFor = (provider: string): ProviderAdapter | undefined => ADAPTERS.get(provider);
