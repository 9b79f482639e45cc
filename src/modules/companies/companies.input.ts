import { z } from 'zod';
import { pageRules } from '../../graphql/pagination.js';
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
export const CompanyListArgs = z.object({ ...pageRules, domain: z.string().max(253).optional() });
