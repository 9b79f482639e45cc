import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { TRASH_TYPES } from './trash.js';

/** The trash's list (API.md section 12): newest deletion first. */
export const TRASH_LIST = listSpec('trash', 'TrashedRecord', ['deleted_at'], '-deleted_at', 'TrashItem');

// Like the event log's `type`: one that names no trashable resource finds nothing (it is not refused).
export const TrashListArgs = z.object({ ...listRules, type: z.string().max(100).optional() });

export const PurgeArgs = z.object({ type: z.enum(TRASH_TYPES), id: z.string().min(1).max(64) });
