import { z } from 'zod';
import { nameList } from '../../validation/rules.js';

export const TIMELINE_KINDS = ['note', 'change', 'payment'] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];
export const TIMELINE_MAX_PER_PAGE = 100;
export const TIMELINE_DEFAULT_PER_PAGE = 25;

/** `kinds` (`note,change`), in the timeline's own order; none given: all. */
const kinds = nameList(TIMELINE_KINDS).transform((names) => TIMELINE_KINDS.filter((kind) => names.includes(kind)));

export const TimelineArgs = z.object({
  kinds: kinds.default([...TIMELINE_KINDS]),
  perPage: z.number().int().min(1).max(TIMELINE_MAX_PER_PAGE).default(TIMELINE_DEFAULT_PER_PAGE),
  cursor: z.string().max(2000).optional(),
});
