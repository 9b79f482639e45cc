import { z } from 'zod';
import { currencyCode } from '../../validation/rules.js';

/**
 * The settings a key may change. The name is not among them: names are unique across
 * workspaces, so renaming through the API would tell a caller which names others use.
 */
export const UpdateWorkspaceInput = z.object({ defaultCurrency: currencyCode() }).partial();
