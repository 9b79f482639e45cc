import { z } from 'zod';

/** `source_ids`: 1 to 10 records of the same resource, folded into the one merged into. */
export const MergeInput = z.object({ sourceIds: z.array(z.string().min(1).max(64)).min(1).max(10) });
