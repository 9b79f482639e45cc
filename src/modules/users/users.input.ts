import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { email, text } from '../../validation/rules.js';

const fields = { name: text(255), email: email() };

export const CreateUserInput = z.object(fields);
export const UpdateUserInput = z.object(fields).partial();
/** The list's sorting (API.md section 8). */
export const USER_LIST = listSpec('users', 'User');

export const UserListArgs = z.object({ ...listRules, email: z.string().max(254).optional() });
