import type { Db } from '../../db/client.js';
import { fieldErrorsFrom } from '../../validation/messages.js';
import { UpdateWorkspaceInput } from './workspaces.input.js';

const SETTINGS = { id: true, name: true, defaultCurrency: true, createdAt: true, updatedAt: true } as const;


/** A workspace's settings by name, for the command line (which has no key): null when there is none. */
export function workspaceSettings(prisma: Db, name: string) {
  return prisma.workspace.findUnique({ where: { name }, select: SETTINGS });
}

/** Changes a workspace's settings by name under the API's own rules; the field errors when they are broken. */
export async function updateWorkspaceSettings(prisma: Db, name: string, settings: unknown) {
  const parsed = UpdateWorkspaceInput.safeParse(settings, { reportInput: true });
  if (!parsed.success) return { errors: fieldErrorsFrom(parsed.error.issues) };
  const found = await prisma.workspace.updateManyAndReturn({ where: { name }, data: parsed.data, select: SETTINGS });
  return { workspace: found[0] ?? null };
}
