import type { Db } from './client.js';
import { newId } from './ids.js';

/** The one message for a workspace name that names none (API.md section 5: only `keys create` and `demo` make one). */
export const noSuchWorkspace = (name: string) =>
  `No workspace is named "${name}"; nothing was made or written. Only \`keys create\` and \`demo\` make a workspace (npm run --silent cli -- keys create --workspace ${JSON.stringify(name)} --json).`;

/** The workspace called `name`, or null: every command but `keys create` and `demo` only uses one that exists (API.md section 5). */
export function existingWorkspace(db: Pick<Db, 'workspace'>, name: string) {
  return db.workspace.findUnique({ where: { name } });
}

/** The workspace called `name`, made first if there is none (the command line names workspaces; a key, an import or the demo data may be the first thing in one). */
export function workspaceNamed(db: Pick<Db, 'workspace'>, name: string) {
  return db.workspace.upsert({ where: { name }, create: { id: newId(), name }, update: {} });
}
