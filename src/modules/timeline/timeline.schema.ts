import { builder } from '../../graphql/builder.js';
import { cursorPageType } from '../../graphql/pagination.js';
import { parseInput } from '../../validation/parse.js';
import { Company } from '../companies/companies.schema.js';
import { Contact } from '../contacts/contacts.schema.js';
import { Deal } from '../deals/deals.schema.js';
import { TIMELINE_DEFAULT_PER_PAGE, TIMELINE_KINDS, TIMELINE_MAX_PER_PAGE, TimelineArgs } from './timeline.input.js';
import { type TimelineItem, type TimelineOwner, timelinePage } from './timeline.js';

const TimelineItemType = builder.objectRef<TimelineItem>('TimelineItem').implement({
  description: "One moment of a record's story: a note about it, a change of it, or (a contact's) a payment event.",
  fields: (t) => ({
    kind: t.exposeString('kind', { description: TIMELINE_KINDS.map((k) => `\`${k}\``).join(', ') }),
    id: t.exposeID('id', { description: 'The note, event or payment event id.' }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime' }),
    summary: t.exposeString('summary', { description: 'One line a person reads, e.g. `Stage: Proposal -> Won`.' }),
    record: t.field({ type: 'JSON', description: 'The note, event or payment event as its REST answer shows it.', resolve: (item) => item.record }),
    changes: t.field({ type: 'JSON', nullable: true, description: 'An update: `{field: {from, to}}` for each field that changed (a deal\'s stage by name); else null.', resolve: (item) => item.changes }),
  }),
});

const TimelinePageType = cursorPageType('Timeline', TimelineItemType);

/** `timeline(first, after, kinds)` on a record type (API.md section 12). */
function timelineOf(owner: TimelineOwner, type: Parameters<typeof builder.objectFields>[0]) {
  builder.objectFields(type, (t) => ({
    timeline: t.field({
      type: TimelinePageType,
      description: `Notes about it, its own changes${owner === 'contact' ? ' and the payments it made' : ''}, newest first, by cursor.`,
      args: {
        first: t.arg.int({ description: `Items per page, 1..${TIMELINE_MAX_PER_PAGE} (default ${TIMELINE_DEFAULT_PER_PAGE}).` }),
        after: t.arg.string({ description: 'A `nextCursor` or `prevCursor`; absent or empty: the newest items.' }),
        kinds: t.arg.stringList({ description: `Among ${TIMELINE_KINDS.map((k) => `\`${k}\``).join(', ')} (REST: comma-separated); default: all.` }),
      },
      resolve: (record, args, ctx) => {
        const parsed = parseInput(TimelineArgs, { kinds: args.kinds ?? undefined, perPage: args.first ?? undefined, cursor: args.after ?? undefined }, ctx);
        return timelinePage(ctx, owner, (record as { id: string }).id, parsed);
      },
    }),
  }));
}

timelineOf('contact', Contact);
timelineOf('company', Company);
timelineOf('deal', Deal);
