import { describe, expect, it } from 'vitest';
import { Prisma } from '../src/generated/sqlite/client.js';
import {
  addInterval,
  couponDiscount,
  fromMinor,
  installmentPlan,
  linkSubtotal,
  quote,
  recurringSchedule,
  toMinor,
  type CouponTerms,
  type DecimalInput,
  type IntervalUnit,
  type QuoteLink,
  type ScheduleEntry,
} from '../src/payments/money.js';

/**
 * Every expected figure below was computed by hand (Python's decimal module at 80 digits,
 * fractions.Fraction for the exact halves, calendar for the dates), not by the code under test.
 */

describe('toMinor / fromMinor', () => {
  const toCases: [DecimalInput, string, bigint][] = [
    ['12.34', 'USD', 1234n],
    ['12.345', 'USD', 1235n], // half up
    ['12.344', 'USD', 1234n],
    [5.5, 'USD', 550n],
    [new Prisma.Decimal('19.99'), 'USD', 1999n],
    [0.1 + 0.2, 'USD', 30n], // 0.30000000000000004
    ['1234', 'JPY', 1234n],
    [100.5, 'JPY', 101n],
    ['1.2345', 'BHD', 1235n],
    ['0.0125', 'BHD', 13n],
    ['0.0004', 'BHD', 0n],
    ['123456789012345678901234.565', 'USD', 12345678901234567890123457n], // beyond doubles and 20 digits
    [0, 'USD', 0n],
  ];
  it.each(toCases)('toMinor(%s, %s) = %s', (amount, currency, expected) => {
    expect(toMinor(amount, currency)).toBe(expected);
  });

  const fromCases: [bigint, string, number][] = [
    [1234n, 'USD', 12.34],
    [5n, 'USD', 0.05],
    [1999n, 'USD', 19.99],
    [1235n, 'JPY', 1235],
    [1235n, 'BHD', 1.235],
    [1n, 'BHD', 0.001],
    [0n, 'USD', 0],
  ];
  it.each(fromCases)('fromMinor(%s, %s) = %s', (minor, currency, expected) => {
    expect(fromMinor(minor, currency)).toBe(expected);
  });

  it('rejects what is not a finite number', () => {
    expect(() => toMinor(Number.NaN, 'USD')).toThrow(RangeError);
    expect(() => toMinor('Infinity', 'USD')).toThrow(RangeError);
  });
});

describe('linkSubtotal', () => {
  type Link = Parameters<typeof linkSubtotal>[0];
  const cases: [string, Link, bigint | undefined][] = [
    ['the amount, USD', { amount: 100, currency: 'USD', products: [] }, 10000n],
    ['the amount over the products', { amount: '49.90', currency: 'USD', products: [{ price: '500', currency: 'USD' }] }, 4990n],
    ['the products summed, USD', { amount: null, currency: 'USD', products: [{ price: '19.99', currency: 'USD' }, { price: 5.01, currency: 'USD' }] }, 2500n],
    ['the products summed, JPY', { amount: null, currency: 'JPY', products: [{ price: 1000, currency: 'JPY' }, { price: 2500, currency: 'JPY' }] }, 3500n],
    ['the products summed, BHD', { amount: null, currency: 'BHD', products: [{ price: '1.234', currency: 'BHD' }, { price: '2.5', currency: 'BHD' }] }, 3734n],
    ['a product in another currency', { amount: null, currency: 'USD', products: [{ price: 10, currency: 'USD' }, { price: 10, currency: 'EUR' }] }, undefined],
    ['a product in another currency, with an amount', { amount: 10, currency: 'USD', products: [{ price: 10, currency: 'EUR' }] }, undefined],
    ['an amount of 0', { amount: 0, currency: 'USD', products: [] }, undefined],
    ['an amount rounding to 0', { amount: '0.004', currency: 'USD', products: [] }, undefined],
    ['no amount, no products', { amount: null, currency: 'USD', products: [] }, undefined],
    ['no amount, free products', { amount: null, currency: 'USD', products: [{ price: 0, currency: 'USD' }] }, undefined],
  ];
  it.each(cases)('%s', (_, link, expected) => {
    expect(linkSubtotal(link)).toBe(expected);
  });
});

describe('couponDiscount', () => {
  const cases: [string, bigint, CouponTerms, string, bigint][] = [
    ['amount 5.5 USD', 10000n, { type: 'amount', value: 5.5 }, 'USD', 550n],
    ['amount 150 USD, over the subtotal', 10000n, { type: 'amount', value: 150 }, 'USD', 10000n],
    ['amount equal to the subtotal', 10000n, { type: 'amount', value: '100.00' }, 'USD', 10000n],
    ['amount 0.0125 BHD, half up to 13 fils', 12345n, { type: 'amount', value: '0.0125' }, 'BHD', 13n],
    ['amount 100.5 JPY, half up', 3500n, { type: 'amount', value: 100.5 }, 'JPY', 101n],
    ['percent 10 of 100.00 USD', 10000n, { type: 'percent', value: 10 }, 'USD', 1000n],
    ['percent 12.5 of 9.99 USD: 124.875 -> 125', 999n, { type: 'percent', value: 12.5 }, 'USD', 125n],
    ['percent 15 of 4999 JPY: 749.85 -> 750', 4999n, { type: 'percent', value: new Prisma.Decimal(15) }, 'JPY', 750n],
    ['percent 50 of 0.01 USD: 0.5 -> 1', 1n, { type: 'percent', value: 50 }, 'USD', 1n],
    ['percent 33.33 of 0.01 USD: 0.3333 -> 0', 1n, { type: 'percent', value: '33.33' }, 'USD', 0n],
    ['percent 0.0001 of 12.345 BHD: 0.012345 -> 0', 12345n, { type: 'percent', value: '0.0001' }, 'BHD', 0n],
    ['percent 100', 12345n, { type: 'percent', value: 100 }, 'BHD', 12345n],
  ];
  it.each(cases)('%s', (_, subtotal, coupon, currency, expected) => {
    expect(couponDiscount(subtotal, coupon, currency)).toBe(expected);
  });

  it('rejects an unknown coupon type', () => {
    expect(() => couponDiscount(100n, { type: 'free', value: 1 }, 'USD')).toThrow(RangeError);
  });
});

describe('installmentPlan', () => {
  const same = (amount: bigint, n: number): bigint[] => Array<bigint>(n).fill(amount);
  // [label, principal, n, rate %, amounts, installmentAmount, total, interest]
  const cases: [string, bigint, number, DecimalInput, bigint[], bigint, bigint, bigint][] = [
    ['1000.00 at 2% x 12: 94.5595966... -> 94.56', 100000n, 12, 2, same(9456n, 12), 9456n, 113472n, 13472n],
    ['1000.00 at 1.99% x 48: 32.5355308... -> 32.54', 100000n, 48, '1.99', same(3254n, 48), 3254n, 156192n, 56192n],
    ['2500.00 at 2.5% x 48: 90.0149844... -> 90.01', 250000n, 48, new Prisma.Decimal('2.5'), same(9001n, 48), 9001n, 432048n, 182048n],
    ['1234.567 BHD at 3.5% x 2: 649.8766754... -> 649.877', 1234567n, 2, '3.5', same(649877n, 2), 649877n, 1299754n, 65187n],
    ['1234.56 at 1.25% x 12: 111.4293020... -> 111.43', 123456n, 12, 1.25, same(11143n, 12), 11143n, 133716n, 10260n],
    ['99.99 at 0.5% x 2: 50.3702741... -> 50.37', 9999n, 2, 0.5, same(5037n, 2), 5037n, 10074n, 75n],
    ['25.25 at 2% x 2: exactly 13.005 -> 13.01 (half up)', 2525n, 2, 2, same(1301n, 2), 1301n, 2602n, 77n],
    ['1.05 at 10% x 2: exactly 0.605 -> 0.61 (half up)', 105n, 2, 10, same(61n, 2), 61n, 122n, 17n],
    ['0.01 at 1% x 2: 0.0050751... -> 0.01', 1n, 2, 1, same(1n, 2), 1n, 2n, 1n],
    ['0 at 2% x 12', 0n, 12, 2, same(0n, 12), 0n, 0n, 0n],
    ['n = 1 ignores the rate', 10000n, 1, 2.5, [10000n], 10000n, 10000n, 0n],
    ['100.00 / 3 without interest: remainder first', 10000n, 3, 0, [3334n, 3333n, 3333n], 3333n, 10000n, 0n],
    ['1000.00 / 48 without interest: 20.83, first 20.99', 100000n, 48, '0', [2099n, ...same(2083n, 47)], 2083n, 100000n, 0n],
    ['0.05 / 12 without interest: all on the first', 5n, 12, 0, [5n, ...same(0n, 11)], 0n, 5n, 0n],
    ['10000 JPY / 12 without interest', 10000n, 12, 0, [837n, ...same(833n, 11)], 833n, 10000n, 0n],
  ];
  it.each(cases)('%s', (_, principal, n, rate, amounts, installmentAmount, total, interest) => {
    const plan = installmentPlan(principal, n, rate);
    expect(plan).toEqual({ installments: n, amounts, installmentAmount, total, interest });
    expect(plan.amounts.reduce((a, b) => a + b, 0n)).toBe(plan.total);
    expect(plan.amounts.at(-1)).toBe(plan.installmentAmount);
  });

  it('rejects impossible terms', () => {
    expect(() => installmentPlan(100n, 0, 0)).toThrow(RangeError);
    expect(() => installmentPlan(100n, 1.5, 0)).toThrow(RangeError);
    expect(() => installmentPlan(-1n, 1, 0)).toThrow(RangeError);
    expect(() => installmentPlan(100n, 2, -1)).toThrow(RangeError);
  });
});

describe('addInterval', () => {
  const cases: [string, IntervalUnit, number, string][] = [
    ['2026-01-31', 'month', 1, '2026-02-28'],
    ['2028-01-31', 'month', 1, '2028-02-29'],
    ['2026-01-31', 'month', 2, '2026-03-31'],
    ['2026-01-31', 'month', 13, '2027-02-28'],
    ['2026-12-15', 'month', 1, '2027-01-15'],
    ['2026-05-31', 'month', 0, '2026-05-31'],
    ['2028-02-29', 'year', 1, '2029-02-28'],
    ['2028-02-29', 'year', 4, '2032-02-29'],
    ['2026-12-30', 'day', 3, '2027-01-02'],
    ['2028-02-28', 'day', 1, '2028-02-29'],
    ['2026-02-22', 'week', 2, '2026-03-08'],
  ];
  it.each(cases)('%s + %s x %s = %s', (start, unit, count, expected) => {
    expect(addInterval(start, unit, count)).toBe(expected);
  });

  it('rejects what is not a date', () => {
    expect(() => addInterval('2026-02-30', 'day', 1)).toThrow(RangeError);
    expect(() => addInterval('2026-1-5', 'day', 1)).toThrow(RangeError);
  });
});

describe('recurringSchedule', () => {
  it('lists at most 12 charges', () => {
    const schedule = recurringSchedule(4990n, '2026-01-31', { intervalUnit: 'month', intervalCount: 1, billingCycles: 13 });
    expect(schedule).toHaveLength(12);
    expect(schedule.at(-1)).toEqual({ number: 12, amount: 4990n, due_date: '2026-12-31' });
  });
});

describe('quote', () => {
  const link = (fields: Partial<QuoteLink>): QuoteLink => ({
    amount: null,
    currency: 'USD',
    products: [],
    maxInstallments: 48,
    interestRate: 0,
    isRecurring: false,
    intervalUnit: 'month',
    intervalCount: 1,
    billingCycles: null,
    ...fields,
  });
  const entries = (amounts: bigint[], dates: string[]): ScheduleEntry[] => {
    expect(amounts).toHaveLength(dates.length);
    return dates.map((due_date, k) => ({ number: k + 1, amount: amounts[k] ?? -1n, due_date }));
  };
  const same = (amount: bigint, n: number): bigint[] => Array<bigint>(n).fill(amount);
  const at = (date: string) => new Date(`${date}T15:00:00Z`);

  interface Case {
    name: string;
    link: QuoteLink;
    installments: number;
    coupon?: CouponTerms;
    today: Date;
    expected: {
      subtotal: bigint;
      discount: bigint;
      principal: bigint;
      installmentAmount: bigint;
      interest: bigint;
      total: bigint;
      /** The whole schedule, or only its first and last entries when long. */
      schedule?: ScheduleEntry[];
      head?: ScheduleEntry[];
      tail?: ScheduleEntry[];
      length: number;
    };
  }
  const monthEnds2026 = ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30', '2026-07-31', '2026-08-31', '2026-09-30', '2026-10-31', '2026-11-30', '2026-12-31'];

  const cases: Case[] = [
    {
      name: 'USD 1000.00 at 2% x 12, from Jan 31 (month-end clamp)',
      link: link({ amount: '1000.00', interestRate: 2, maxInstallments: 12 }),
      installments: 12,
      today: at('2026-01-31'),
      expected: { subtotal: 100000n, discount: 0n, principal: 100000n, installmentAmount: 9456n, interest: 13472n, total: 113472n, schedule: entries(same(9456n, 12), monthEnds2026), length: 12 },
    },
    {
      name: 'USD 100.00 / 3 without interest, leap February',
      link: link({ amount: 100, maxInstallments: 3 }),
      installments: 3,
      today: at('2028-01-31'),
      expected: { subtotal: 10000n, discount: 0n, principal: 10000n, installmentAmount: 3333n, interest: 0n, total: 10000n, schedule: entries([3334n, 3333n, 3333n], ['2028-01-31', '2028-02-29', '2028-03-31']), length: 3 },
    },
    {
      name: 'USD 25.25 at 2% x 2: an exact half rounds up',
      link: link({ amount: '25.25', interestRate: '2' }),
      installments: 2,
      today: at('2026-06-10'),
      expected: { subtotal: 2525n, discount: 0n, principal: 2525n, installmentAmount: 1301n, interest: 77n, total: 2602n, schedule: entries([1301n, 1301n], ['2026-06-10', '2026-07-10']), length: 2 },
    },
    {
      name: 'JPY products 1000 + 2500, 15% coupon, at 2.5% x 2',
      link: link({ currency: 'JPY', products: [{ price: 1000, currency: 'JPY' }, { price: 2500, currency: 'JPY' }], interestRate: 2.5 }),
      installments: 2,
      coupon: { type: 'percent', value: 15 },
      today: at('2026-03-15'),
      // 3500 - 525 = 2975; 2975 * 0.025 / (1 - 1.025^-2) = 1543.51...
      expected: { subtotal: 3500n, discount: 525n, principal: 2975n, installmentAmount: 1544n, interest: 113n, total: 3088n, schedule: entries([1544n, 1544n], ['2026-03-15', '2026-04-15']), length: 2 },
    },
    {
      name: 'JPY 2975 at 1.99% x 48, from Dec 31',
      link: link({ currency: 'JPY', amount: 3500, interestRate: '1.99' }),
      installments: 48,
      coupon: { type: 'amount', value: 525 },
      today: at('2026-12-31'),
      // 2975 * 0.0199 / (1 - 1.0199^-48) = 96.79...
      expected: {
        subtotal: 3500n,
        discount: 525n,
        principal: 2975n,
        installmentAmount: 97n,
        interest: 1681n,
        total: 4656n,
        head: entries([97n, 97n, 97n], ['2026-12-31', '2027-01-31', '2027-02-28']),
        tail: [
          { number: 46, amount: 97n, due_date: '2030-09-30' },
          { number: 47, amount: 97n, due_date: '2030-10-31' },
          { number: 48, amount: 97n, due_date: '2030-11-30' },
        ],
        length: 48,
      },
    },
    {
      name: 'BHD 12.345, amount coupon 0.0125 (13 fils), at 3.5% x 2',
      link: link({ currency: 'BHD', amount: '12.345', interestRate: '3.5' }),
      installments: 2,
      coupon: { type: 'amount', value: '0.0125' },
      today: at('2026-08-31'),
      // 12332 * 0.035 / (1 - 1.035^-2) = 6491.57...
      expected: { subtotal: 12345n, discount: 13n, principal: 12332n, installmentAmount: 6492n, interest: 652n, total: 12984n, schedule: entries([6492n, 6492n], ['2026-08-31', '2026-09-30']), length: 2 },
    },
    {
      name: 'USD 9.99, 12.5% coupon (124.875 -> 125), n = 1 ignores the rate',
      link: link({ amount: '9.99', interestRate: 2.5 }),
      installments: 1,
      coupon: { type: 'percent', value: '12.5' },
      today: at('2026-01-01'),
      expected: { subtotal: 999n, discount: 125n, principal: 874n, installmentAmount: 874n, interest: 0n, total: 874n, schedule: entries([874n], ['2026-01-01']), length: 1 },
    },
    {
      name: 'USD 50, amount coupon 75: nothing to pay',
      link: link({ amount: 50, interestRate: 2 }),
      installments: 3,
      coupon: { type: 'amount', value: 75 },
      today: at('2026-01-01'),
      expected: { subtotal: 5000n, discount: 5000n, principal: 0n, installmentAmount: 0n, interest: 0n, total: 0n, schedule: entries([0n, 0n, 0n], ['2026-01-01', '2026-02-01', '2026-03-01']), length: 3 },
    },
    {
      name: 'recurring monthly, 3 cycles, 10% coupon, from Jan 31',
      link: link({ amount: '49.90', interestRate: 2, isRecurring: true, intervalUnit: 'month', intervalCount: 1, billingCycles: 3 }),
      installments: 1,
      coupon: { type: 'percent', value: 10 },
      today: at('2026-01-31'),
      expected: { subtotal: 4990n, discount: 499n, principal: 4491n, installmentAmount: 4491n, interest: 0n, total: 4491n, schedule: entries(same(4491n, 3), ['2026-01-31', '2026-02-28', '2026-03-31']), length: 3 },
    },
    {
      name: 'recurring monthly until canceled: 12 shown',
      link: link({ amount: 20, isRecurring: true, intervalUnit: 'month', intervalCount: 1, billingCycles: null }),
      installments: 1,
      today: at('2026-03-15'),
      expected: {
        subtotal: 2000n,
        discount: 0n,
        principal: 2000n,
        installmentAmount: 2000n,
        interest: 0n,
        total: 2000n,
        schedule: entries(same(2000n, 12), ['2026-03-15', '2026-04-15', '2026-05-15', '2026-06-15', '2026-07-15', '2026-08-15', '2026-09-15', '2026-10-15', '2026-11-15', '2026-12-15', '2027-01-15', '2027-02-15']),
        length: 12,
      },
    },
    {
      name: 'recurring every 3 months, 20 cycles: 12 shown, clamps do not stick',
      link: link({ amount: 20, isRecurring: true, intervalUnit: 'month', intervalCount: 3, billingCycles: 20 }),
      installments: 1,
      today: at('2026-11-30'),
      expected: {
        subtotal: 2000n,
        discount: 0n,
        principal: 2000n,
        installmentAmount: 2000n,
        interest: 0n,
        total: 2000n,
        schedule: entries(same(2000n, 12), ['2026-11-30', '2027-02-28', '2027-05-30', '2027-08-30', '2027-11-30', '2028-02-29', '2028-05-30', '2028-08-30', '2028-11-30', '2029-02-28', '2029-05-30', '2029-08-30']),
        length: 12,
      },
    },
    {
      name: 'recurring every 2 weeks, 4 cycles, over the new year',
      link: link({ amount: 15, isRecurring: true, intervalUnit: 'week', intervalCount: 2, billingCycles: 4 }),
      installments: 1,
      today: at('2026-12-20'),
      expected: { subtotal: 1500n, discount: 0n, principal: 1500n, installmentAmount: 1500n, interest: 0n, total: 1500n, schedule: entries(same(1500n, 4), ['2026-12-20', '2027-01-03', '2027-01-17', '2027-01-31']), length: 4 },
    },
    {
      name: 'recurring every 10 days, 2 cycles',
      link: link({ currency: 'JPY', amount: 980, isRecurring: true, intervalUnit: 'day', intervalCount: 10, billingCycles: 2 }),
      installments: 1,
      today: at('2026-12-25'),
      expected: { subtotal: 980n, discount: 0n, principal: 980n, installmentAmount: 980n, interest: 0n, total: 980n, schedule: entries([980n, 980n], ['2026-12-25', '2027-01-04']), length: 2 },
    },
    {
      name: 'recurring yearly from Feb 29, 5 cycles',
      link: link({ currency: 'BHD', amount: '120.5', isRecurring: true, intervalUnit: 'year', intervalCount: 1, billingCycles: 5 }),
      installments: 1,
      today: at('2028-02-29'),
      expected: {
        subtotal: 120500n,
        discount: 0n,
        principal: 120500n,
        installmentAmount: 120500n,
        interest: 0n,
        total: 120500n,
        schedule: entries(same(120500n, 5), ['2028-02-29', '2029-02-28', '2030-02-28', '2031-02-28', '2032-02-29']),
        length: 5,
      },
    },
  ];

  it.each(cases)('$name', ({ link, installments, coupon, today, expected }) => {
    const result = quote(link, { installments, coupon, today });
    if (result === undefined) throw new Error('expected a payable link');
    const { schedule: expectedSchedule, head, tail, length, ...figures } = expected;
    expect(result).toMatchObject({ currency: link.currency, installments, ...figures });
    expect(result.schedule).toHaveLength(length);
    if (expectedSchedule) expect(result.schedule).toEqual(expectedSchedule);
    if (head) expect(result.schedule.slice(0, head.length)).toEqual(head);
    if (tail) expect(result.schedule.slice(-tail.length)).toEqual(tail);
    // Installments add up to the total exactly; a recurring schedule repeats the total.
    const sum = result.schedule.reduce((s, e) => s + e.amount, 0n);
    expect(sum).toBe(link.isRecurring ? result.total * BigInt(length) : result.total);
    expect(result.schedule.at(-1)?.amount).toBe(result.installmentAmount);
  });

  it('uses the UTC date of today', () => {
    const result = quote(link({ amount: 10 }), { installments: 1, today: new Date('2026-02-01T00:30:00+02:00') });
    expect(result?.schedule).toEqual([{ number: 1, amount: 1000n, due_date: '2026-01-31' }]);
  });

  const unpayable: [string, QuoteLink][] = [
    ['a product in another currency', link({ products: [{ price: 10, currency: 'USD' }, { price: 5, currency: 'EUR' }] })],
    ['a subtotal of 0', link({ amount: 0 })],
    ['no amount and no products', link({})],
  ];
  it.each(unpayable)('cannot be paid: %s', (_, unpayableLink) => {
    expect(quote(unpayableLink, { installments: 1, today: at('2026-01-01') })).toBeUndefined();
  });

  it('rejects installments the link does not allow', () => {
    const today = at('2026-01-01');
    expect(() => quote(link({ amount: 10, maxInstallments: 3 }), { installments: 4, today })).toThrow(RangeError);
    expect(() => quote(link({ amount: 10 }), { installments: 0, today })).toThrow(RangeError);
    expect(() => quote(link({ amount: 10, isRecurring: true }), { installments: 2, today })).toThrow(RangeError);
  });
});
