import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../src/auth/api-keys.js';
import { newId } from '../src/db/ids.js';
import { scopeToWorkspace } from '../src/db/tenancy.js';
import { type TestApp, startApp } from './support/app.js';

// The workspace-scoped client itself (src/db/tenancy.ts); test/tenancy.test.ts proves
// the same rule through every route and GraphQL field.
let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

const product = (name: string) => ({ id: newId(), name, type: 'product', price: 1, currency: 'USD', unit: 'unit', search: name.toLowerCase() });

describe('scopeToWorkspace', () => {
  it("reads, writes and counts only its workspace's rows, and leaves the base client unscoped", async () => {
    const prisma = app.database.prisma;
    const [a, b] = [await createKey(prisma, `scoped-a-${newId()}`), await createKey(prisma, `scoped-b-${newId()}`)];
    const [inA, inB] = [scopeToWorkspace(prisma, a.workspaceId), scopeToWorkspace(prisma, b.workspaceId)];

    // The workspace is forced onto created rows, whatever the data says.
    const made = await inA.product.create({ data: { ...product('Anvil'), workspaceId: b.workspaceId } as never });
    expect(made.workspaceId).toBe(a.workspaceId);
    await inA.product.createMany({ data: [product('Bolt'), product('Chain')] as never });

    expect((await inA.product.findMany({ orderBy: { name: 'asc' } })).map((p) => p.name)).toEqual(['Anvil', 'Bolt', 'Chain']);
    expect(await inB.product.findMany()).toEqual([]);
    expect(await inB.product.findUnique({ where: { id: made.id } })).toBeNull();
    expect(await inB.product.count()).toBe(0);
    expect(await inB.product.updateMany({ data: { name: 'Stolen' } })).toEqual({ count: 0 });
    expect(await inB.product.deleteMany({ where: { id: made.id } })).toEqual({ count: 0 });
    expect(await inB.workspace.findMany()).toEqual([expect.objectContaining({ id: b.workspaceId })]);

    // An interactive transaction's client is scoped the same way.
    expect(await inB.$transaction(async (tx) => tx.product.findMany())).toEqual([]);
    expect(await inA.$transaction(async (tx) => tx.product.count())).toBe(3);

    // The base client is untouched by scoping: it sees both workspaces' rows.
    await inB.product.create({ data: product('Dynamo') as never });
    const both = await prisma.product.findMany({ where: { workspaceId: { in: [a.workspaceId, b.workspaceId] } } });
    expect(both.map((p) => p.name).sort()).toEqual(['Anvil', 'Bolt', 'Chain', 'Dynamo']);
  });
});
