import { createKey } from '../../src/auth/api-keys.js';
import { openDatabase } from '../../src/db/client.js';
import type { DatabaseTarget } from '../../src/db/database-url.js';
import { newId } from '../../src/db/ids.js';
import { searchText } from '../../src/db/search.js';

export const SEED = { products: 1000, users: 10, stages: 5, contacts: 400, deals: 200 } as const;

export interface Seeded {
  key: string;
  workspaceId: string;
  productIds: string[];
}

/**
 * A workspace, its key (through the project's createKey) and the data the load reads,
 * written with bulk createMany calls through the project's own client. Deals link two
 * contacts and two products each through Prisma's implicit join tables, which
 * createMany cannot reach: one INSERT per table.
 */
export async function seed(target: DatabaseTarget): Promise<Seeded> {
  const database = await openDatabase(target);
  const { prisma } = database;
  try {
    const { key, workspaceId } = await createKey(prisma, 'bench', 'benchmark');
    const row = () => ({ id: newId(), workspaceId });

    const products = Array.from({ length: SEED.products }, (_, i) => {
      const name = `Bench product ${i + 1}`;
      const sku = `BENCH-${String(i + 1).padStart(4, '0')}`;
      return {
        ...row(),
        name,
        sku,
        type: i % 4 === 0 ? 'service' : 'product',
        description: i % 2 === 0 ? `A product made for the benchmark, number ${i + 1}.` : null,
        price: (10 + (i % 90)) + 0.99,
        cost: i % 3 === 0 ? null : 5 + (i % 40) + 0.5,
        currency: 'USD',
        unit: i % 4 === 0 ? 'hour' : 'unit',
        taxRate: i % 5 === 0 ? null : 19,
        search: searchText(name, sku),
      };
    });
    await prisma.product.createMany({ data: products });

    const users = Array.from({ length: SEED.users }, (_, i) => ({ ...row(), name: `Bench user ${i + 1}`, email: `user${i + 1}@bench.example` }));
    await prisma.user.createMany({ data: users });

    const pipelineId = newId();
    await prisma.pipeline.create({ data: { id: pipelineId, workspaceId, name: 'Bench pipeline', isDefault: true } });
    const stages = Array.from({ length: SEED.stages }, (_, i) => ({
      ...row(),
      pipelineId,
      externalId: newId(),
      name: `Stage ${i + 1}`,
      order: i,
      color: '#3366cc',
      probability: (i + 1) * 20,
    }));
    await prisma.dealStage.createMany({ data: stages });

    const contacts = Array.from({ length: SEED.contacts }, (_, i) => {
      const firstName = `Seed${i + 1}`;
      const email = `seed${i + 1}@bench.example`;
      return { ...row(), firstName, lastName: 'Contact', email, properties: {}, search: searchText(firstName, 'Contact', email) };
    });
    await prisma.contact.createMany({ data: contacts });

    const deals = Array.from({ length: SEED.deals }, (_, i) => ({
      ...row(),
      name: `Bench deal ${i + 1}`,
      estimatedValue: 1000 + i * 10,
      expectedCloseDate: '2027-06-30',
      stageId: stages[i % stages.length]!.id,
      userId: users[i % users.length]!.id,
      properties: {},
    }));
    await prisma.deal.createMany({ data: deals });

    // Implicit many-to-many tables: "A" is the model whose name sorts first. The ids are
    // ULIDs made above, so they are written as literals (checked, not trusted blindly).
    const pairs = (rows: [string, string][]) =>
      rows
        .map(([a, b]) => {
          if (!/^[0-9A-Z]{26}$/.test(a) || !/^[0-9A-Z]{26}$/.test(b)) throw new Error(`unexpected id ${a} / ${b}`);
          return `('${a}', '${b}')`;
        })
        .join(', ');
    const dealContacts = deals.flatMap((d, i): [string, string][] => [
      [contacts[(2 * i) % contacts.length]!.id, d.id],
      [contacts[(2 * i + 1) % contacts.length]!.id, d.id],
    ]);
    const dealProducts = deals.flatMap((d, i): [string, string][] => [
      [d.id, products[i % products.length]!.id],
      [d.id, products[(i + products.length / 2) % products.length]!.id],
    ]);
    await prisma.$executeRawUnsafe(`INSERT INTO "_ContactToDeal" ("A", "B") VALUES ${pairs(dealContacts)}`);
    await prisma.$executeRawUnsafe(`INSERT INTO "_DealToProduct" ("A", "B") VALUES ${pairs(dealProducts)}`);

    return { key, workspaceId, productIds: products.map((p) => p.id) };
  } finally {
    await database.close();
  }
}
