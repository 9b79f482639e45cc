import { Prisma } from '../generated/sqlite/client.js';

/**
 * ISO 4217 minor-unit exponents that are not 2. ICU's digits (Intl) are display
 * conventions and differ from ISO for some codes (IDR, HUF, IQD, COP...), so the
 * standard's table is kept here; it changes about once a decade.
 */
const EXPONENTS: Record<string, number> = {
  ...Object.fromEntries(['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'].map((c) => [c, 0])),
  ...Object.fromEntries(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'].map((c) => [c, 3])),
  CLF: 4,
  UYW: 4,
  // Funds, metals and testing codes have no minor unit ("N.A."): the unit is the smallest amount.
  ...Object.fromEntries(['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX'].map((c) => [c, 0])),
};

export const minorUnitExponent = (currency: string): number => EXPONENTS[currency] ?? 2;

/** An amount in the currency's minor unit (USD cents, JPY yen, BHD fils), rounded half away from zero. */
export function toMinorUnits(amount: Prisma.Decimal | number | string, currency: string): number {
  return new Prisma.Decimal(amount.toString()).mul(10 ** minorUnitExponent(currency)).toDecimalPlaces(0, Prisma.Decimal.ROUND_HALF_UP).toNumber();
}

/** Minor units as an exact decimal string in the currency's unit (1234n BRL → "12.34", 1200n JPY → "1200"). */
export function minorToText(minor: bigint, currency: string): string {
  const exponent = minorUnitExponent(currency);
  const sign = minor < 0n ? '-' : '';
  const digits = (minor < 0n ? -minor : minor).toString().padStart(exponent + 1, '0');
  return exponent === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** A provider's JSON number (150.5) as an exact decimal string in the currency's unit ("150.50"). */
export const numberToText = (value: number, currency: string): string => new Prisma.Decimal(String(value)).toFixed(minorUnitExponent(currency));
