import { allows, forbidden } from '../../auth/scopes.js';
import { delegateNamed } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import type { Context } from '../../graphql/context.js';
import { listArgs, listInput, pageType, paginate } from '../../graphql/pagination.js';
import { parseInput } from '../../validation/parse.js';
import { Company } from '../companies/companies.schema.js';
import { Contact } from '../contacts/contacts.schema.js';
import { Deal } from '../deals/deals.schema.js';
import { Note } from '../notes/notes.schema.js';
import { Product } from '../products/products.schema.js';
import { Task } from '../tasks/tasks.schema.js';
import { Ticket } from '../tickets/tickets.schema.js';
import { PurgeArgs, TRASH_LIST, TrashListArgs } from './trash.input.js';
import { TRASH_TYPES, type TrashType, purgeFromTrash, restoreFromTrash } from './trash.js';

export const TrashItem = builder.prismaObject('TrashedRecord', {
  name: 'TrashItem',
  description: 'A deleted record, until it is restored or purged.',
  fields: (t) => ({
    type: t.exposeString('type', { description: `The REST path name: ${TRASH_TYPES.join(', ')}.` }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    deletedAt: t.expose('deletedAt', { type: 'DateTime' }),
    purgeAt: t.expose('purgeAt', { type: 'DateTime', description: 'When the background work purges it for good (TRASH_RETENTION_DAYS after its deletion).' }),
    mergedInto: t.exposeID('mergedInto', { nullable: true, description: 'The record a merge folded it into: it cannot be restored.' }),
  }),
});

const TrashPage = pageType('TrashItem', TrashItem);

const TrashFilter = builder.inputType('TrashFilter', {
  fields: (t) => ({ type: t.string({ description: `One of ${TRASH_TYPES.join(', ')}.` }) }),
});

/** The trashed types a key may see: those it can read. */
const readable = (ctx: Context) => TRASH_TYPES.filter((type) => !ctx.scopes || allows(ctx.scopes, { resource: type, access: 'read' }));

builder.queryFields((t) => ({
  trash: t.field({
    type: TrashPage,
    description: 'Deleted records, newest deletion first; each type only for a key that can read it.',
    args: { ...listArgs(t, TRASH_LIST), filter: t.arg({ type: TrashFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { type, ...listing } = parseInput(TrashListArgs, { ...args.filter, ...listInput(args) }, ctx);
      const visible: string[] = readable(ctx);
      if (type && (TRASH_TYPES as readonly string[]).includes(type) && !visible.includes(type)) throw forbidden();
      return paginate(ctx.db.trashedRecord, TRASH_LIST, { ...listing, where: { type: type ?? { in: visible } } }, ctx, info);
    },
  }),
}));

/** `restore<Name>(id)`: the record back from the trash, as its GET answers it. */
function restoreField(type: TrashType, name: string, ref: Parameters<typeof builder.objectFields>[0], delegate: string) {
  builder.mutationField(`restore${name}`, (t) =>
    t.prismaField({
      type: ref as never,
      description: `Takes the ${name.toLowerCase()} out of the trash with its links (404: not in the trash; 409: merged, a unique value taken, or a record it names gone).`,
      args: { id: t.arg.id({ required: true }) },
      resolve: async (query, _root, { id }, ctx) => {
        await restoreFromTrash(ctx, type, id);
        return delegateNamed<{ findUniqueOrThrow(args: object): Promise<never> }>(ctx.db, delegate).findUniqueOrThrow({ ...query, where: { id } });
      },
    }),
  );
}

restoreField('contacts', 'Contact', Contact, 'contact');
restoreField('companies', 'Company', Company, 'company');
restoreField('deals', 'Deal', Deal, 'deal');
restoreField('products', 'Product', Product, 'product');
restoreField('tasks', 'Task', Task, 'task');
restoreField('tickets', 'Ticket', Ticket, 'ticket');
restoreField('notes', 'Note', Note, 'note');

builder.mutationFields((t) => ({
  purgeTrashed: t.id({
    description: "Deletes a record of the trash for good (the resource's write scope).",
    args: { type: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { type, id } = parseInput(PurgeArgs, args, ctx);
      if (ctx.scopes && !allows(ctx.scopes, { resource: type, access: 'write' })) throw forbidden();
      await purgeFromTrash(ctx, type, id);
      return id;
    },
  }),
}));
