import { allows, forbidden } from '../../auth/scopes.js';
import { providerOf } from '../../db/client.js';
import { builder } from '../../graphql/builder.js';
import { longReadsOf } from '../../graphql/context.js';
import { invalid } from '../../graphql/errors.js';
import { cursorPageType } from '../../graphql/pagination.js';
import { SEARCH_TYPE_NAMES, type SearchType } from '../../search/documents.js';
import { type SearchHit, readCursor, searchPage } from '../../search/query.js';
import { queryWords } from '../../search/words.js';
import { parseInput } from '../../validation/parse.js';
import { SEARCH_DEFAULT_PER_PAGE, SEARCH_MAX_PER_PAGE, SearchArgs } from './search.input.js';

const SearchHitType = builder.objectRef<SearchHit>('SearchHit').implement({
  fields: (t) => ({
    type: t.string({ description: 'The REST name of its list: `contacts`, `payment-links`...', resolve: (h) => h.type }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    subtitle: t.exposeString('subtitle', { nullable: true }),
    record: t.field({ type: 'JSON', description: 'The record as its REST GET answers it (snake_case).', resolve: (h) => JSON.parse(h.record) as unknown }),
  }),
});

const SearchPageType = cursorPageType('Search', SearchHitType);

builder.queryFields((t) => ({
  search: t.field({
    type: SearchPageType,
    description:
      'Every record whose words start with each word of `query` (case and accents aside; an e-mail by its parts, a phone by its digits), in rank order: a field equal to the query, then a field starting with it, then the rest, newer first.',
    args: {
      query: t.arg.string({ required: true }),
      types: t.arg.stringList({ description: `Among ${SEARCH_TYPE_NAMES.map((n) => `\`${n}\``).join(', ')}; default: every type the key can read.` }),
      first: t.arg.int({ description: `Matches per page, 1..${SEARCH_MAX_PER_PAGE} (default ${SEARCH_DEFAULT_PER_PAGE}).` }),
      after: t.arg.string({ description: 'A `nextCursor` or `prevCursor`; absent or empty: the first page.' }),
    },
    resolve: async (_root, args, ctx) => {
      const { q, types, perPage, cursor } = parseInput(SearchArgs, { q: args.query, types: args.types ?? undefined, perPage: args.first ?? undefined, cursor: args.after ?? undefined }, ctx);
      const readable = (type: string) => !ctx.scopes || allows(ctx.scopes, { resource: type, access: 'read' });
      // Types asked for by name must all be readable; by default, those that are.
      if (types && !types.every(readable)) throw forbidden();
      const searched = (types ?? SEARCH_TYPE_NAMES.filter(readable)) as SearchType[];
      const request = { words: queryWords(q), types: searched, perPage, cursor };
      const position = readCursor(request, providerOf(ctx.db));
      if (position === null) throw invalid({ cursor: ['The cursor is invalid: it was not given by this search.'] });
      // A query of only punctuation has no word to look for: nothing matches.
      if (request.words.length === 0 || searched.length === 0) return { data: [], perPage, nextCursor: null, prevCursor: null };
      return searchPage(longReadsOf(ctx), request, position);
    },
  }),
}));

