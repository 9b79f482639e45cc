import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { idList, longText, text } from '../../validation/rules.js';

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

const fields = {
  name: text(255),
  domain: z
    .string()
    .trim()
    .transform((v) => v.toLowerCase())
    .pipe(z.string().regex(HOST_NAME, { message: 'The :attribute field must be a valid host name.' }))
    .nullable(),
  notes: longText().nullable(),
  contactIds: idList(),
};

export const CreateCompanyInput = z.object(fields).partial({ domain: true, notes: true, contactIds: true });
export const UpdateCompanyInput = z.object(fields).partial();
/** The list's sorting (API.md section 8). */
export const COMPANY_LIST = listSpec('companies', 'Company', ['name', 'domain']);

export const CompanyListArgs = z.object({ ...listRules, domain: z.string().max(253).optional() });
