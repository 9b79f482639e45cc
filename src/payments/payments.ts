import type { Config } from '../config.js';
import type { Payments, ProviderAdapter, ProviderCallOptions } from './providers.js';
import { asaasAdapter } from './providers/asaas/adapter.js';
import { stripeAdapter } from './providers/stripe/adapter.js';
import { testAdapter } from './providers/test/adapter.js';
import { SecretBox } from './secrets.js';

export type PaymentsConfig = Pick<Config, 'SECRETS_KEY' | 'SECRETS_KEY_FILE' | 'PUBLIC_BASE_URL' | 'PROVIDER_TIMEOUT_SECONDS' | 'PROVIDER_RECONCILE_SECONDS' | 'STRIPE_API_BASE' | 'ASAAS_API_BASE' | 'ASAAS_DUE_DAYS'>;

/** The payment machinery of one service (the composition root makes it once): every adapter, keyed by its `provider`. */
export function createPayments(config: PaymentsConfig): Payments {
  const adapters: ProviderAdapter[] = [testAdapter, stripeAdapter({ apiBase: config.STRIPE_API_BASE }), asaasAdapter({ apiBase: config.ASAAS_API_BASE, dueDays: config.ASAAS_DUE_DAYS })];
  const call: ProviderCallOptions = { timeoutMs: config.PROVIDER_TIMEOUT_SECONDS * 1000 };
  const flights = new Map<string, Promise<unknown>>();
  return {
    secrets: new SecretBox({ keys: config.SECRETS_KEY, keyFile: config.SECRETS_KEY_FILE }),
    adapters: new Map(adapters.map((adapter) => [adapter.provider, adapter])),
    call,
    singleFlight<T>(key: string, work: () => Promise<T>): Promise<T> {
      let flight = flights.get(key) as Promise<T> | undefined;
      if (!flight) {
        flight = work().finally(() => flights.delete(key));
        flights.set(key, flight);
      }
      return flight;
    },
    observeCalls(observe) {
      call.observe = observe;
    },
    publicBaseUrl: config.PUBLIC_BASE_URL,
    reconcileMs: config.PROVIDER_RECONCILE_SECONDS * 1000,
  };
}
