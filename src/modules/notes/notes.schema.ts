import type { z } from 'zod';
import { atomically, lockRow } from '../../db/locks.js';
import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { moveToTrash } from '../trash/trash.js';
import type { Context } from '../../graphql/context.js';
import { invalid, notFound } from '../../graphql/errors.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import { listArgs, listInput, pageType, paginate } from '../../graphql/pagination.js';
import { orNotFound } from '../../graphql/records.js';
import { linkIds, unknownId, unknownIds, writeReferencing } from '../../validation/ids.js';
import { parseInput } from '../../validation/parse.js';
import { CreateNoteInput, NOTE_LIST, NO_TARGET, NoteListArgs, UpdateNoteInput, targetCount } from './notes.input.js';

/** A record a note is about, as its answer shows it: `type` the REST path name, `title` what a person reads. */
interface NoteTarget {
  type: 'contacts' | 'companies' | 'deals';
  id: string;
  title: string;
}

const NoteTargetType = builder.objectRef<NoteTarget>('NoteTarget').implement({
  description: 'A record the note is about.',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'The REST path name: contacts, companies or deals.' }),
    id: t.exposeID('id'),
    title: t.exposeString('title', { description: "A contact's name (or e-mail), a company's or a deal's name." }),
  }),
});

const contactTitle = (c: { firstName: string; lastName: string | null; email: string }) => [c.firstName, c.lastName].filter(Boolean).join(' ') || c.email;

const TARGETS_SELECT = {
  contacts: { select: { id: true, firstName: true, lastName: true, email: true }, orderBy: { id: 'asc' } },
  companies: { select: { id: true, name: true }, orderBy: { id: 'asc' } },
  deals: { select: { id: true, name: true }, orderBy: { id: 'asc' } },
} as const;

type TargetRows = {
  contacts: { id: string; firstName: string; lastName: string | null; email: string }[];
  companies: { id: string; name: string }[];
  deals: { id: string; name: string }[];
};

function noteTargets(note: TargetRows): NoteTarget[] {
  return [
    ...note.contacts.map((c) => ({ type: 'contacts' as const, id: c.id, title: contactTitle(c) })),
    ...note.companies.map((c) => ({ type: 'companies' as const, id: c.id, title: c.name })),
    ...note.deals.map((d) => ({ type: 'deals' as const, id: d.id, title: d.name })),
  ];
}

/** Everything a note's REST object shows, for many notes in one read (the timeline's note items). */
export const NOTE_RECORD_SELECT = { id: true, body: true, pinned: true, authorId: true, createdAt: true, updatedAt: true, author: { select: { id: true, name: true } }, ...TARGETS_SELECT } as const;

/**
 * A note as `GET /notes/{id}` answers it (the `NoteFields` fragment of notes.rest.ts), from a
 * row read with NOTE_RECORD_SELECT; test/timeline.test.ts compares the two.
 */
export function noteRecord(note: TargetRows & { id: string; body: string; pinned: boolean; authorId: string | null; createdAt: Date; updatedAt: Date; author: { id: string; name: string } | null }) {
  return {
    id: note.id,
    body: note.body,
    pinned: note.pinned,
    author: note.author,
    targets: noteTargets(note),
    created_at: note.createdAt.toISOString(),
    updated_at: note.updatedAt.toISOString(),
  };
}

export const Note = builder.prismaObject('Note', {
  fields: (t) => ({
    id: t.exposeID('id'),
    body: t.exposeString('body'),
    pinned: t.exposeBoolean('pinned'),
    authorId: t.exposeID('authorId', { nullable: true }),
    author: t.relation('author', { nullable: true }),
    targets: t.field({
      type: [NoteTargetType],
      description: 'The contacts, companies and deals the note is about, in that order, each by id.',
      select: TARGETS_SELECT,
      resolve: noteTargets,
    }),
    // The request's id arrays, for the CSV export's columns (API.md section 8): an export imports back with its links.
    contactIds: t.field({ type: ['ID'], select: { contacts: { select: { id: true }, orderBy: { id: 'asc' } } }, resolve: (n) => n.contacts.map((x) => x.id) }),
    companyIds: t.field({ type: ['ID'], select: { companies: { select: { id: true }, orderBy: { id: 'asc' } } }, resolve: (n) => n.companies.map((x) => x.id) }),
    dealIds: t.field({ type: ['ID'], select: { deals: { select: { id: true }, orderBy: { id: 'asc' } } }, resolve: (n) => n.deals.map((x) => x.id) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const NotePage = pageType('Note', Note);

const NoteInputs = createAndUpdateInputs('Note', { create: CreateNoteInput, update: UpdateNoteInput }, (t) => ({
  body: t.string({ description: '1 to 100,000 characters, kept exactly as written (Markdown welcome).' }),
  pinned: t.boolean(),
  authorId: t.id({ description: 'A user of the workspace, or null.' }),
  contactIds: t.idList({ description: 'Contacts the note is about; replaces the whole set when present.' }),
  companyIds: t.idList({ description: 'Companies the note is about; replaces the whole set when present.' }),
  dealIds: t.idList({ description: 'Deals the note is about; replaces the whole set when present.' }),
}));

const NoteFilter = builder.inputType('NoteFilter', {
  fields: (t) => ({
    contactId: t.id({ description: 'Notes about this contact.' }),
    companyId: t.id({ description: 'Notes about this company.' }),
    dealId: t.id({ description: 'Notes about this deal.' }),
  }),
});

type NoteInputShape = typeof NoteInputs.update.$inferInput;

/** The author and every target must be records of the workspace: 422 on the field. */
const checks = (ctx: Context, input: NoteInputShape) =>
  Promise.all([
    unknownId(ctx.db.user, input.authorId, 'author_id'),
    unknownIds(ctx.db.contact, input.contactIds, 'contact_ids'),
    unknownIds(ctx.db.company, input.companyIds, 'company_ids'),
    unknownIds(ctx.db.deal, input.dealIds, 'deal_ids'),
  ]);

async function validNote<S extends z.ZodType>(ctx: Context, input: NoteInputShape, schema: S): Promise<z.output<S>> {
  return parseInput(schema, input, ctx, ...(await checks(ctx, input)));
}

builder.queryFields((t) => ({
  note: t.prismaField({
    type: Note,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.note.findUnique({ ...query, where: { id } }), 'Note'),
  }),
  notes: t.field({
    type: NotePage,
    args: { ...listArgs(t, NOTE_LIST), filter: t.arg({ type: NoteFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { contactId, companyId, dealId, ...listing } = parseInput(NoteListArgs, { ...args.filter, ...listInput(args) }, ctx);
      const where = {
        ...(contactId !== undefined ? { contacts: { some: { id: contactId } } } : {}),
        ...(companyId !== undefined ? { companies: { some: { id: companyId } } } : {}),
        ...(dealId !== undefined ? { deals: { some: { id: dealId } } } : {}),
      };
      return paginate(ctx.db.note, NOTE_LIST, { ...listing, where }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createNote: t.prismaField({
    type: Note,
    args: { input: t.arg({ type: NoteInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const { contactIds, companyIds, dealIds, ...data } = await validNote(ctx, input, CreateNoteInput);
      return writeReferencing(
        () => checks(ctx, input),
        () =>
          ctx.db.note.create({
            ...query,
            data: { ...data, ...newRow(ctx.workspace.id), contacts: linkIds(contactIds, 'connect'), companies: linkIds(companyIds, 'connect'), deals: linkIds(dealIds, 'connect') },
          }),
      );
    },
  }),
  updateNote: t.prismaField({
    type: Note,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: NoteInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.note.findUnique({ where: { id }, select: { id: true } }))) throw notFound('Note');
      const { contactIds, companyIds, dealIds, ...data } = await validNote(ctx, input, UpdateNoteInput);
      if (contactIds === undefined && companyIds === undefined && dealIds === undefined) return ctx.db.note.update({ ...query, where: { id }, data });
      // Replacing a set locks the note first: concurrent replacements take turns, and the
      // last one still leaves the note about something.
      return writeReferencing(
        () => checks(ctx, input),
        () =>
          atomically(ctx.db, async (tx) => {
            await lockRow(tx, 'note', id);
            const stored = await tx.note.findUniqueOrThrow({ where: { id }, select: { contacts: { select: { id: true } }, companies: { select: { id: true } }, deals: { select: { id: true } } } });
            const ids = (given: string[] | undefined, kept: { id: string }[]) => given ?? kept.map((r) => r.id);
            if (targetCount({ contactIds: ids(contactIds, stored.contacts), companyIds: ids(companyIds, stored.companies), dealIds: ids(dealIds, stored.deals) }) === 0) {
              throw invalid({ contact_ids: [NO_TARGET] });
            }
            return tx.note.update({ ...query, where: { id }, data: { ...data, contacts: linkIds(contactIds, 'set'), companies: linkIds(companyIds, 'set'), deals: linkIds(dealIds, 'set') } });
          }),
      );
    },
  }),
  deleteNote: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => moveToTrash(ctx, 'notes', id),
  }),
}));
