import { searchText } from '../../db/search.js';
import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { email, idList, longText, text } from '../../validation/rules.js';
import { personNameKey } from '../duplicates/keys.js';

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

/** The list's sorting (API.md section 8). */
export const CONTACT_LIST = listSpec('contacts', 'Contact', ['first_name', 'last_name', 'email']);

export const ContactListArgs = z.object({
  ...listRules,
  email: z.string().max(254).optional(),
  search: z.string().max(255).optional(),
});

/** The columns a contact's names and e-mail make: the text `search` matches against (src/db/search.ts) and the duplicates' name key. */
export const contactDerivedColumns = (c: { firstName: string; lastName: string | null; email: string }) => ({
  search: searchText(c.firstName, c.lastName, c.email),
  nameKey: personNameKey(c.firstName, c.lastName),
});
