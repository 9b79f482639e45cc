import { searchText } from '../../db/search.js';
import { z } from 'zod';
import { pageRules } from '../../graphql/pagination.js';
import { email, idList, longText, text } from '../../validation/rules.js';

const fields = {
  firstName: text(255),
  lastName: z.string().trim().max(255).nullable(),
  email: email(),
  notes: longText().nullable(),
  companyIds: idList(),
  // Keys and values are checked against the property definitions (properties.ts).
  properties: z.record(z.string(), z.unknown()),
};

export const CreateContactInput = z.object(fields).partial({ lastName: true, notes: true, companyIds: true, properties: true });
export const UpdateContactInput = z.object(fields).partial();
/** An upsert needs what a create needs: it may create. */
export const UpsertContactInput = CreateContactInput;

export const ContactListArgs = z.object({
  ...pageRules,
  email: z.string().max(254).optional(),
  search: z.string().max(255).optional(),
});

/** The text `search` matches against (see src/db/search.ts). */
export const contactSearchText = (c: { firstName: string; lastName: string | null; email: string }) => searchText(c.firstName, c.lastName, c.email);
