import type { Db } from './client.js';
import { newId } from './ids.js';

/** The workspace called `name`, made first if there is none (the command line names workspaces; a key, an import or the demo data may be the first thing in one). */
export function workspaceNamed(db: Pick<Db, 'workspace'>, name: string) {
  return db.workspace.upsert({ where: { name }, create: { id: newId(), name }, update: {} });
}
