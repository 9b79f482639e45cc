import { describe, expect, it } from 'vitest';
import { schemaText } from '../scripts/prisma-generate.mjs';
import { pendingMigrationSql } from '../scripts/schema-engine.js';
import { testAdminUrl } from './support/scratch-database.js';

// Prisma's schema engine replays this provider's migrations folder on a throwaway database
// and diffs it against prisma/models.prisma: tables, columns, types, defaults, nullability,
// indexes, foreign keys. Any difference is a model changed without its migration (or a
// migration the models do not know of), and `npm run migration:create` would write it.
const provider = (process.env.TEST_PROVIDER ?? 'sqlite') as 'sqlite' | 'postgresql';

describe(`the ${provider} migrations against prisma/models.prisma`, () => {
  it('build exactly the database the models declare: no pending SQL', async () => {
    expect(await pendingMigrationSql(provider, testAdminUrl())).toBe('');
  });

  it('a field added to a model without a migration is pending SQL', async () => {
    const altered = schemaText(provider).replace(/^model Company \{\n/m, '$&  driftProbe String?\n');
    expect(altered).not.toBe(schemaText(provider));
    // (Spacing differs by provider.)
    const pending = (await pendingMigrationSql(provider, testAdminUrl(), altered)).replace(/\s+/g, ' ');
    expect(pending).toBe('-- AlterTable ALTER TABLE "Company" ADD COLUMN "driftProbe" TEXT;');
  });
});
