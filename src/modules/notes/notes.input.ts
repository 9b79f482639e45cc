import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { evenAfterFailures, idList } from '../../validation/rules.js';

const fields = {
  // Kept exactly as written: no trimming (Markdown's line breaks and indentation mean something).
  body: z.string().min(1).max(100_000),
  pinned: z.boolean(),
  authorId: z.string().min(1).max(64).nullable(),
  contactIds: idList(),
  companyIds: idList(),
  dealIds: idList(),
};

type Targets = { contactIds?: string[]; companyIds?: string[]; dealIds?: string[] };
const targetCount = (note: Targets) => (note.contactIds?.length ?? 0) + (note.companyIds?.length ?? 0) + (note.dealIds?.length ?? 0);
export const NO_TARGET = 'A note needs at least one contact, company or deal.';

/** A note is about something: at least one contact, company or deal (reported on `contact_ids`). */
export const CreateNoteInput = z
  .object(fields)
  .partial({ pinned: true, authorId: true, contactIds: true, companyIds: true, dealIds: true })
  .refine((note) => targetCount(note) > 0, { message: NO_TARGET, path: ['contactIds'], ...evenAfterFailures });
/** Each id list present replaces its set; whether a target is left is checked against the stored note (notes.schema.ts). */
export const UpdateNoteInput = z.object(fields).partial();

/** The list's sorting (API.md section 8). */
export const NOTE_LIST = listSpec('notes', 'Note');

export const NoteListArgs = z.object({
  ...listRules,
  contactId: z.string().max(64).optional(),
  companyId: z.string().max(64).optional(),
  dealId: z.string().max(64).optional(),
});

export { targetCount };
