import { z } from 'zod';
import { calendarDate, currencyCode } from '../../validation/rules.js';
import { PAYMENT_STATUSES } from '../payment-transactions/payment-transactions.input.js';

export const DEAL_REPORT_GROUPS = ['stage', 'user', 'expected_close_month'] as const;
export const PAYMENT_REPORT_GROUPS = ['day', 'week', 'month', 'status', 'payment_link'] as const;

const id = () => z.string().min(1).max(64);
const laterThan = (from: string) => `The :attribute field must be a date after or equal to ${from}.`;

export const DealReportArgs = z
  .object({
    groupBy: z.enum(DEAL_REPORT_GROUPS).default('stage'),
    // Default: the workspace's default pipeline.
    pipelineId: id().optional(),
    userId: id().optional(),
    createdSince: z.date().optional(),
    expectedCloseFrom: calendarDate().optional(),
    expectedCloseTo: calendarDate().optional(),
  })
  .refine((a) => !a.expectedCloseFrom || !a.expectedCloseTo || a.expectedCloseFrom <= a.expectedCloseTo, {
    path: ['expectedCloseTo'],
    message: laterThan('expected close from'),
  });

export const PaymentReportArgs = z
  .object({
    groupBy: z.enum(PAYMENT_REPORT_GROUPS).default('month'),
    // Calendar dates (UTC) of `created_at`, both inclusive.
    from: calendarDate().optional(),
    to: calendarDate().optional(),
    status: z.enum(PAYMENT_STATUSES).optional(),
    currency: currencyCode().optional(),
  })
  .refine((a) => !a.from || !a.to || a.from <= a.to, { path: ['to'], message: laterThan('from') });
