import { builder } from '../../graphql/builder.js';
import { cursorPageType } from '../../graphql/pagination.js';
import { parseInput } from '../../validation/parse.js';
import { DUPLICATES_DEFAULT_PER_PAGE, DUPLICATES_MAX_PER_PAGE, DuplicatesArgs } from './duplicates.input.js';
import { type DuplicateGroup, type DuplicateType, duplicatesPage } from './duplicates.js';

const DuplicateGroupType = builder.objectRef<DuplicateGroup>('DuplicateGroup').implement({
  description: 'Records that are likely one: merge them (mergeContacts, mergeCompanies).',
  fields: (t) => ({
    reason: t.exposeString('reason', { description: '`phone` or `name` (contacts), `domain` or `name` (companies).' }),
    ids: t.exposeIDList('ids', { description: 'Two or more, in id order.' }),
  }),
});

const DuplicatePageType = cursorPageType('Duplicate', DuplicateGroupType);

function duplicatesField(name: string, type: DuplicateType, rules: string) {
  builder.queryField(name, (t) =>
    t.field({
      type: DuplicatePageType,
      description: `Groups of ${type} that are likely one: ${rules}. By cursor, in the order of each group's first id.`,
      args: {
        first: t.arg.int({ description: `Groups per page, 1..${DUPLICATES_MAX_PER_PAGE} (default ${DUPLICATES_DEFAULT_PER_PAGE}).` }),
        after: t.arg.string({ description: 'A `nextCursor` or `prevCursor`; absent or empty: the first page.' }),
      },
      resolve: (_root, args, ctx) => duplicatesPage(ctx, type, parseInput(DuplicatesArgs, { perPage: args.first ?? undefined, cursor: args.after ?? undefined }, ctx)),
    }),
  );
}

duplicatesField('contactDuplicates', 'contacts', 'the same phone (a `phone` property, one without its country or area code included), or the same name (case and accents aside) with a company or an e-mail domain in common');
duplicatesField('companyDuplicates', 'companies', 'the same domain, or the same name (case, accents and a trailing legal form aside: Inc, Ltd, LLC, GmbH, S.A., Ltda, ME)');
