/**
 * The checkout's money math, in one place (API.md section 7, "Amounts").
 *
 * Amounts are integers in the currency's minor unit (USD cents, JPY yen, BHD fils) held
 * as `bigint`; binary floats never carry an amount. Decimal inputs (Prisma.Decimal,
 * numbers from JSON, strings) are read as exact fractions and every division is
 * rounded once, half up, at the end. The installment formula is evaluated as an exact
 * rational too: its value can land exactly on a half (P = 25.25 USD at 2% a month over 2
 * months gives 13.005 USD), where a decimal power rounded to any precision can fall short.
 */
import { Prisma } from '../generated/sqlite/client.js';
import { minorUnitExponent } from './currencies.js';

/** An amount in the currency's minor unit. */
export type Minor = bigint;

/** A decimal as the database, JSON or a form gives it. */
export type DecimalInput = Prisma.Decimal | number | string;

/** How often a recurring link charges (its `interval_unit`). */
export const INTERVAL_UNITS = ['day', 'week', 'month', 'year'] as const;
export type IntervalUnit = (typeof INTERVAL_UNITS)[number];

/** Recurring links show their first charges only; the rest follow the same rhythm. */
export const RECURRING_SCHEDULE_LIMIT = 12;

/** A non-negative fraction num/den, exactly. */
interface Ratio {
  num: bigint;
  den: bigint;
}

/** Reads a finite decimal exactly: Decimal's toFixed() writes every digit, never an exponent. */
function ratio(value: DecimalInput, what: string): Ratio {
  const decimal = new Prisma.Decimal(value instanceof Prisma.Decimal ? value : String(value));
  if (!decimal.isFinite()) throw new RangeError(`${what} must be a finite number, got ${String(value)}.`);
  const [whole = '0', fraction = ''] = decimal.toFixed().split('.');
  return { num: BigInt(whole + fraction), den: 10n ** BigInt(fraction.length) };
}

/** num/den rounded half up (half away from zero), for den > 0. */
function divHalfUp(num: bigint, den: bigint): bigint {
  const sign = num < 0n ? -1n : 1n;
  const magnitude = num * sign;
  const quotient = magnitude / den;
  return sign * (2n * (magnitude % den) >= den ? quotient + 1n : quotient);
}

/** `amount` (in currency units, e.g. 5.5 USD) in minor units, rounded half up. */
export function toMinor(amount: DecimalInput, currency: string): Minor {
  const { num, den } = ratio(amount, 'An amount');
  return divHalfUp(num * 10n ** BigInt(minorUnitExponent(currency)), den);
}

/**
 * Minor units back in currency units, as a JS number for JSON (1234n USD -> 12.34): the
 * decimal is built exactly, then converted once to the nearest double, as JSON.parse would.
 */
export function fromMinor(minor: Minor, currency: string): number {
  return exactDecimal(minor, currency).toNumber();
}

/** Minor units back in currency units as an exact decimal, for a decimal column (1234n USD -> 12.34): no float on the way. */
export function exactDecimal(minor: Minor, currency: string): Prisma.Decimal {
  return new Prisma.Decimal(`${minor}e-${minorUnitExponent(currency)}`);
}

/**
 * A sum the database computed in ten-thousandths, as an exact decimal: every stored
 * decimal has at most 4 places (src/validation/rules.ts), so SUM(ROUND(x * 10000)) is
 * an exact integer sum on SQLite, whose decimal columns hold doubles, as on PostgreSQL.
 */
export const fromTenThousandths = (sum: bigint): Prisma.Decimal => new Prisma.Decimal(`${sum}e-4`);

/**
 * Σ amount × percent / 100, rounded half up once, to the currency's minor unit (a
 * pipeline's weighted total): amounts in ten-thousandths (as above), each with its percent.
 */
export function weightedTotal(parts: readonly { amount: bigint; percent: DecimalInput }[], currency: string): Prisma.Decimal {
  // amount (10^-4) × percent (10^-4, at most 4 places) / 100: units of 10^-10.
  let sum = 0n;
  for (const { amount, percent } of parts) {
    const { num, den } = ratio(percent, 'A percentage');
    sum += amount * ((num * 10n ** 4n) / den);
  }
  return exactDecimal(divHalfUp(sum * 10n ** BigInt(minorUnitExponent(currency)), 10n ** 10n), currency);
}

export interface SubtotalLink {
  amount: DecimalInput | null;
  currency: string;
  products: readonly { price: DecimalInput; currency: string }[];
}

/**
 * The link's subtotal: its `amount`, or when null the sum of its products' prices.
 * `undefined` when the link cannot be paid (callers answer 422 "This payment link cannot
 * be paid."): the subtotal is 0, or a product is priced in another currency than the link.
 */
export function linkSubtotal(link: SubtotalLink): Minor | undefined {
  if (link.products.some((p) => p.currency !== link.currency)) return undefined;
  const subtotal =
    link.amount === null
      ? link.products.reduce((sum, p) => sum + toMinor(p.price, link.currency), 0n)
      : toMinor(link.amount, link.currency);
  return subtotal > 0n ? subtotal : undefined;
}

export interface CouponTerms {
  /** `amount` | `percent` (the column is a string; anything else throws). */
  type: string;
  /** Currency units for `amount` coupons, a percentage for `percent` ones. */
  value: DecimalInput;
}

/**
 * What a coupon takes off `subtotal`: an `amount` coupon its value (never more than the
 * subtotal), a `percent` coupon that share of the subtotal rounded half up to the minor
 * unit. Whether the coupon may be redeemed (active, unexpired...) is the caller's check.
 */
export function couponDiscount(subtotal: Minor, coupon: CouponTerms, currency: string): Minor {
  let discount: Minor;
  if (coupon.type === 'amount') {
    discount = toMinor(coupon.value, currency);
  } else if (coupon.type === 'percent') {
    const { num, den } = ratio(coupon.value, 'A percentage');
    discount = divHalfUp(subtotal * num, den * 100n);
  } else {
    throw new RangeError(`Unknown coupon type "${coupon.type}".`);
  }
  if (discount < 0n) throw new RangeError('A coupon cannot add to the price.');
  return discount < subtotal ? discount : subtotal;
}

export interface Plan {
  installments: number;
  /** Each installment's amount, in order; they sum to `total`. */
  amounts: Minor[];
  /** What clients are told an installment costs: the last one's amount. */
  installmentAmount: Minor;
  total: Minor;
  interest: Minor;
}

/**
 * Splits `principal` into `installments` monthly payments at `interestRatePercent` a month
 * (2.5 means 2.5%). Without interest (n = 1 or a 0 rate) the total is the principal and
 * the cents that do not divide evenly go on the first payment. With interest every
 * payment is the annuity P * i / (1 - (1 + i)^-n), rounded half up, and the total is n
 * times it.
 */
export function installmentPlan(principal: Minor, installments: number, interestRatePercent: DecimalInput): Plan {
  if (principal < 0n) throw new RangeError('The principal cannot be negative.');
  if (!Number.isSafeInteger(installments) || installments < 1) throw new RangeError(`Invalid number of installments: ${installments}.`);
  const rate = ratio(interestRatePercent, 'An interest rate');
  if (rate.num < 0n) throw new RangeError('The interest rate cannot be negative.');
  const n = BigInt(installments);

  if (n === 1n || rate.num === 0n) {
    const base = principal / n; // P >= 0: truncation is rounding down
    const amounts = Array.from({ length: installments }, (_, k) => (k === 0 ? principal - base * (n - 1n) : base));
    return { installments, amounts, installmentAmount: base, total: principal, interest: 0n };
  }

  // With i = a/b (b = 100 * 10^scale) and g = (a + b)^n, b^n:
  // P * i / (1 - (1 + i)^-n) = P * a * (a+b)^n / (b * ((a+b)^n - b^n)), all integers.
  const a = rate.num;
  const b = rate.den * 100n;
  const grown = (a + b) ** n;
  const payment = divHalfUp(principal * a * grown, b * (grown - b ** n));
  const total = payment * n;
  return {
    installments,
    amounts: Array.from({ length: installments }, () => payment),
    installmentAmount: payment,
    total,
    interest: total - principal,
  };
}

/** The plan of every choice a link offers: 1..`maxInstallments` payments of `principal` (after any coupon). */
export function installmentPlans(principal: Minor, maxInstallments: number, interestRatePercent: DecimalInput): Plan[] {
  return Array.from({ length: maxInstallments }, (_, k) => installmentPlan(principal, k + 1, interestRatePercent));
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A date as YYYY-MM-DD parts, UTC; throws on anything else (2026-02-30 included). */
function parseDate(date: string): [year: number, monthIndex: number, day: number] {
  const match = DATE.exec(date);
  const [, y, m, d] = match ?? [];
  if (y === undefined || m === undefined || d === undefined) throw new RangeError(`Not a YYYY-MM-DD date: "${date}".`);
  const parts: [number, number, number] = [Number(y), Number(m) - 1, Number(d)];
  if (formatDate(new Date(Date.UTC(...parts))) !== date) throw new RangeError(`Not a calendar date: "${date}".`);
  return parts;
}

/** The UTC calendar date of `instant`, as YYYY-MM-DD. */
export function formatDate(instant: Date): string {
  const pad = (value: number, width: number) => String(value).padStart(width, '0');
  return `${pad(instant.getUTCFullYear(), 4)}-${pad(instant.getUTCMonth() + 1, 2)}-${pad(instant.getUTCDate(), 2)}`;
}

/**
 * `start` plus `count` days, weeks, months or years. Months and years keep the day of the
 * month, clamped to the target month's last day (01-31 + 1 month = 02-28, or 02-29 in a
 * leap year). Schedules call it with k * count from the same start, never chaining, so a
 * clamp does not stick: Jan 31, Feb 28, Mar 31.
 */
export function addInterval(start: string, unit: IntervalUnit, count: number): string {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`Invalid interval count: ${count}.`);
  const [year, month, day] = parseDate(start);
  if (unit === 'day' || unit === 'week') {
    return formatDate(new Date(Date.UTC(year, month, day + count * (unit === 'week' ? 7 : 1))));
  }
  const target = month + count * (unit === 'year' ? 12 : 1);
  const lastDay = new Date(Date.UTC(year, target + 1, 0)).getUTCDate(); // day 0 = previous month's last
  return formatDate(new Date(Date.UTC(year, target, Math.min(day, lastDay))));
}

export interface ScheduleEntry {
  /** 1-based. */
  number: number;
  amount: Minor;
  due_date: string;
}

/** Installment k falls due k - 1 months after `start` (the rate is monthly). */
export function installmentSchedule(plan: Plan, start: string): ScheduleEntry[] {
  return plan.amounts.map((amount, k) => ({ number: k + 1, amount, due_date: addInterval(start, 'month', k) }));
}

export interface Recurrence {
  intervalUnit: IntervalUnit;
  intervalCount: number;
  /** How many charges in all; null: until canceled. */
  billingCycles: number | null;
}

/** The first charge (on `start`) and the next ones, `amount` each, at most 12 listed. */
export function recurringSchedule(amount: Minor, start: string, recurrence: Recurrence): ScheduleEntry[] {
  const { intervalUnit, intervalCount, billingCycles } = recurrence;
  if (!Number.isSafeInteger(intervalCount) || intervalCount < 1) throw new RangeError(`Invalid interval count: ${intervalCount}.`);
  if (billingCycles !== null && (!Number.isSafeInteger(billingCycles) || billingCycles < 1)) {
    throw new RangeError(`Invalid billing cycles: ${billingCycles}.`);
  }
  const shown = Math.min(billingCycles ?? RECURRING_SCHEDULE_LIMIT, RECURRING_SCHEDULE_LIMIT);
  return Array.from({ length: shown }, (_, k) => ({
    number: k + 1,
    amount,
    due_date: addInterval(start, intervalUnit, k * intervalCount),
  }));
}

const isIntervalUnit = (unit: string): unit is IntervalUnit => (INTERVAL_UNITS as readonly string[]).includes(unit);

/** The payment link's fields the quote reads (Prisma's row fits). */
export interface QuoteLink extends SubtotalLink {
  maxInstallments: number;
  interestRate: DecimalInput;
  isRecurring: boolean;
  intervalUnit: string;
  intervalCount: number;
  billingCycles: number | null;
}

export interface Quote {
  currency: string;
  subtotal: Minor;
  discount: Minor;
  /** subtotal - discount, never negative. */
  principal: Minor;
  installments: number;
  installmentAmount: Minor;
  interest: Minor;
  /** What the payer pays: for a recurring link, at each charge. */
  total: Minor;
  schedule: ScheduleEntry[];
}

/**
 * Everything the checkout shows for paying `link` in `installments` (with `coupon`, if any)
 * starting `today` (its UTC date). `undefined` when the link cannot be paid (see
 * linkSubtotal). `installments` must be 1..maxInstallments, and 1 for a recurring link:
 * callers validate it first (a field error), so anything else throws a RangeError.
 */
export function quote(link: QuoteLink, options: { installments: number; coupon?: CouponTerms | null; today: Date }): Quote | undefined {
  const { installments, coupon, today } = options;
  if (!Number.isSafeInteger(installments) || installments < 1 || installments > link.maxInstallments) {
    throw new RangeError(`Invalid number of installments: ${installments} (at most ${link.maxInstallments}).`);
  }
  if (link.isRecurring && installments !== 1) throw new RangeError('A recurring link is paid in 1 installment.');
  const subtotal = linkSubtotal(link);
  if (subtotal === undefined) return undefined;
  const discount = coupon ? couponDiscount(subtotal, coupon, link.currency) : 0n;
  const principal = subtotal - discount;
  const plan = installmentPlan(principal, installments, link.interestRate);
  const start = formatDate(today);

  let schedule: ScheduleEntry[];
  if (link.isRecurring) {
    const { intervalUnit, intervalCount, billingCycles } = link;
    if (!isIntervalUnit(intervalUnit)) throw new RangeError(`Unknown interval unit "${intervalUnit}".`);
    schedule = recurringSchedule(plan.total, start, { intervalUnit, intervalCount, billingCycles });
  } else {
    schedule = installmentSchedule(plan, start);
  }
  return {
    currency: link.currency,
    subtotal,
    discount,
    principal,
    installments,
    installmentAmount: plan.installmentAmount,
    interest: plan.interest,
    total: plan.total,
    schedule,
  };
}
