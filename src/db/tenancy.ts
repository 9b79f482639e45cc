import type { Db } from './client.js';
import { newId } from './ids.js';

/** The columns every new tenant-owned row starts with (the scope below enforces the workspace anyway). */
export const newRow = (workspaceId: string) => ({ id: newId(), workspaceId });

/**
 * A Prisma client that can only see and write one workspace's rows.
 *
 * Every model operation gets `workspaceId` added to its filter and forced onto the
 * data it creates, so no resolver can forget the
 * scope. Relations reached from a scoped row stay in the workspace because rows are
 * only ever linked to ids checked through this client.
 */
export function scopeToWorkspace(prisma: Db, workspaceId: string) {
  const scope = (model: string) => (model === 'Workspace' ? { id: workspaceId } : { workspaceId });
  const stamp = (model: string, data: Record<string, unknown>): any => (model === 'Workspace' ? data : { ...data, workspaceId });

  return prisma.$extends({
    name: 'workspace-scope',
    query: {
      $allModels: {
        async $allOperations({ model, operation, args, query }) {
          const a = (args ?? {}) as Record<string, any>;
          switch (operation) {
            case 'create':
              return query({ ...a, data: stamp(model, a.data) });
            case 'createMany':
            case 'createManyAndReturn':
              return query({ ...a, data: [a.data].flat().map((d: Record<string, unknown>) => stamp(model, d)) });
            case 'upsert':
              return query({ ...a, where: { ...a.where, ...scope(model) }, create: stamp(model, a.create) });
            default:
              return query({ ...a, where: { ...a.where, ...scope(model) } });
          }
        },
      },
    },
  });
}

export type ScopedDb = ReturnType<typeof scopeToWorkspace>;
