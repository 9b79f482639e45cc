import { z } from 'zod';
import { pageRules } from '../../graphql/pagination.js';
import { email, text } from '../../validation/rules.js';

const fields = { name: text(255), email: email() };

export const CreateUserInput = z.object(fields);
export const UpdateUserInput = z.object(fields).partial();
export const UserListArgs = z.object({ ...pageRules, email: z.string().max(254).optional() });
