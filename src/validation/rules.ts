import { z } from 'zod';
import { isCalendarDate } from '../graphql/scalars.js';
import { Messages } from './messages.js';

/**
 * Field rules shared by every resource's input schema. Inputs arrive with
 * GraphQL's types already checked, so these are about values.
 */

/** A required text: present, not empty, at most `max` characters. */
export const text = (max = 255) => z.string().trim().min(1).max(max);

/** Long free text (notes, descriptions). */
export const longText = () => z.string().max(10_000);

export const email = () =>
  z
    .string()
    .trim()
    .max(254)
    .pipe(z.email())
    .transform((v) => v.toLowerCase());

export const calendarDate = () => z.string().refine(isCalendarDate, { message: 'The :attribute field must be a valid date.' });

// The ISO 4217 codes the runtime's ICU knows (no hand-kept list to go stale), and the
// current ISO codes ICU leaves out: funds, precious metals, bond units, testing and
// "no currency" codes, and VED (Node 20's ICU lacks all of these).
const CURRENCIES = new Set([
  ...Intl.supportedValuesOf('currency'),
  ...['BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW', 'VED'],
  ...['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX'],
]);

/** An ISO 4217 currency code in upper case, e.g. `USD`. */
export const currencyCode = () =>
  z.string().refine((v) => /^[A-Z]{3}$/.test(v) && CURRENCIES.has(v), { message: 'The :attribute field must be an ISO 4217 currency code in upper case.' });

// Decimal columns hold these exactly on both databases: at most 4 decimal places and
// below 10^11, so a value never needs more than 15 significant digits.
const MAX_DECIMAL = 99_999_999_999.9999;
// Decimal places as written: JSON numbers arrive as the shortest text that reads back
// as the same double, which is the text the client sent.
const decimalPlaces = (n: number) => {
  const [mantissa = '', exponent = '0'] = String(n).split('e');
  return Math.max(0, (mantissa.split('.')[1]?.length ?? 0) - Number(exponent));
};
const fourPlaces = (n: number) => decimalPlaces(n) <= 4;

/** Money and other exact amounts: a number >= `min`. */
export const decimal = (min = 0, max = MAX_DECIMAL) =>
  z
    .number()
    .min(min)
    .max(max)
    .refine(fourPlaces, { message: 'The :attribute field must have at most 4 decimal places.' });

/** A phone number as a `phone` property holds it (API.md section 3): 3..32 of digits, spaces and `+()-.`, at least 3 digits. */
export const PHONE = /^(?=(?:\D*\d){3})[\d\s+().-]{3,32}$/;

/** A percentage, 0..100. */
export const percentage = () => decimal(0, 100);

/** A list of ids, at most `max`: duplicates collapse; existence is checked against the workspace. */
export const idList = (max = 1000) =>
  z
    .array(z.string().min(1).max(64))
    .max(max)
    .transform((ids) => [...new Set(ids)]);

/** Names as REST sends them (comma-separated, possibly in one item) or GraphQL does (a list): each once, at least one, each among `allowed`. */
export const nameList = (allowed: readonly string[]) =>
  z
    .array(z.string())
    .transform((items) => [...new Set(items.flatMap((item) => item.split(',')).map((name) => name.trim()).filter(Boolean))])
    .refine((names) => names.length > 0, { message: 'The :attribute field must have at least 1 items.' })
    .refine((names) => names.every((name) => allowed.includes(name)), { message: 'The selected :attribute is invalid.' });

export { Messages };

/**
 * For cross-field refinements: run even when some field already failed, so every
 * violated field is reported (zod skips refinements after a failure by default).
 */
export const evenAfterFailures = { when: () => true };
