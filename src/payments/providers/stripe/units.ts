import { minorUnitExponent } from '../../currencies.js';

/**
 * Stripe's amounts are integers in its own unit per currency, which is not always ISO
 * 4217's minor unit (https://docs.stripe.com/currencies): zero-decimal currencies are
 * charged in whole units, three-decimal ones in thousandths whose last digit must be 0,
 * every other in hundredths (ISK and UGX too, though ISO gives them no decimals).
 */
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

const stripeExponent = (currency: string) => (ZERO_DECIMAL.has(currency) ? 0 : THREE_DECIMAL.has(currency) ? 3 : 2);

/** An amount in ISO minor units as Stripe's integer, or undefined when Stripe cannot charge it exactly. */
export function toStripeAmount(minor: bigint, currency: string): number | undefined {
  const code = currency.toUpperCase();
  const shift = stripeExponent(code) - minorUnitExponent(code);
  let units: bigint;
  if (shift >= 0) units = minor * 10n ** BigInt(shift);
  else {
    const divisor = 10n ** BigInt(-shift);
    if (minor % divisor !== 0n) return undefined;
    units = minor / divisor;
  }
  if (THREE_DECIMAL.has(code) && units % 10n !== 0n) return undefined;
  return Number.isSafeInteger(Number(units)) ? Number(units) : undefined;
}

/** Stripe's integer amount as an exact decimal string in the currency's unit ("12.34", "1200"). */
export function fromStripeAmount(units: number, currency: string): string {
  const exponent = stripeExponent(currency.toUpperCase());
  const text = BigInt(units).toString().padStart(exponent + 1, '0');
  return exponent === 0 ? text : `${text.slice(0, -exponent)}.${text.slice(-exponent)}`;
}
