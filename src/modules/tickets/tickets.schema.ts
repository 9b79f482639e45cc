import { type Tx, atomically, lockRow } from '../../db/locks.js';
import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { moveToTrash } from '../trash/trash.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import type { Context } from '../../graphql/context.js';
import { notFound } from '../../graphql/errors.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import { unknownId, writeReferencing } from '../../validation/ids.js';
import { parseInput, parseInputReportingAll } from '../../validation/parse.js';
import { uniqueValue } from '../../validation/unique.js';
import {
  CreateTicketInput,
  CreateTicketStatusInput,
  TICKET_LIST,
  TICKET_STATUS_LIST,
  TicketListArgs,
  TicketStatusListArgs,
  UpdateTicketInput,
  UpdateTicketStatusInput,
} from './tickets.input.js';

/** Tickets read in this order everywhere: position, then id (creation order breaks ties). */
const TICKET_ORDER = [{ position: 'asc' as const }, { id: 'asc' as const }];

export const TicketStatus = builder.prismaObject('TicketStatus', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    order: t.exposeInt('order'),
    isClosed: t.exposeBoolean('isClosed'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    tickets: t.relation('tickets', { ...pagedRelation(t, TICKET_ORDER) }),
  }),
});

export const Ticket = builder.prismaObject('Ticket', {
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    ticketStatusId: t.exposeID('statusId'),
    status: t.relation('status'),
    position: t.exposeInt('position', { description: 'Set by the server: last within its status when created or moved there.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const TicketStatusPage = pageType('TicketStatus', TicketStatus);
const TicketPage = pageType('Ticket', Ticket);

const TicketStatusInputs = createAndUpdateInputs('TicketStatus', { create: CreateTicketStatusInput, update: UpdateTicketStatusInput }, (t) => ({
  name: t.string({ description: 'Unique in the workspace.' }),
  order: t.int({ description: 'Default: after the last status.' }),
  isClosed: t.boolean(),
}));

const TicketInputs = createAndUpdateInputs('Ticket', { create: CreateTicketInput, update: UpdateTicketInput }, (t) => ({
  title: t.string(),
  description: t.string(),
  ticketStatusId: t.id({ description: 'Moving to another status puts the ticket last there.' }),
}));

const TicketFilter = builder.inputType('TicketFilter', {
  fields: (t) => ({ ticketStatusId: t.id() }),
});

const uniqueStatusName = uniqueValue('name', CreateTicketStatusInput.shape.name, (ctx, name) => ctx.db.ticketStatus.findFirst({ where: { name }, select: { id: true } }));

const statusCheck = (ctx: Context, input: { ticketStatusId?: string | null }) => unknownId(ctx.db.ticketStatus, input.ticketStatusId, 'ticket_status_id');

/**
 * The position after the last ticket of a status (1 for an empty one), read after the
 * workspace row is locked: writers of positions take turns, so positions are unique.
 * (Not the status row: the lock writes `updatedAt`, and a status's must not move when a
 * ticket arrives; the workspace's is shown nowhere.)
 */
async function lastPosition(tx: Tx, workspaceId: string, statusId: string): Promise<number> {
  await lockRow(tx, 'workspace', workspaceId);
  const { _max } = await tx.ticket.aggregate({ where: { statusId }, _max: { position: true } });
  return (_max.position ?? 0) + 1;
}

builder.queryFields((t) => ({
  ticketStatus: t.prismaField({
    type: TicketStatus,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.ticketStatus.findUnique({ ...query, where: { id } }), 'Ticket status'),
  }),
  ticketStatuses: t.field({
    type: TicketStatusPage,
    args: listArgs(t, TICKET_STATUS_LIST),
    resolve: (_root, args, ctx, info) => {
      const listing = parseInput(TicketStatusListArgs, listInput(args), ctx);
      return paginate(ctx.db.ticketStatus, TICKET_STATUS_LIST, { ...listing, where: {} }, ctx, info);
    },
  }),
  ticket: t.prismaField({
    type: Ticket,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.ticket.findUnique({ ...query, where: { id } }), 'Ticket'),
  }),
  tickets: t.field({
    type: TicketPage,
    args: { ...listArgs(t, TICKET_LIST), filter: t.arg({ type: TicketFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { ticketStatusId, ...listing } = parseInput(TicketListArgs, { ...args.filter, ...listInput(args) }, ctx);
      return paginate(ctx.db.ticket, TICKET_LIST, { ...listing, where: { statusId: ticketStatusId } }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createTicketStatus: t.prismaField({
    type: TicketStatus,
    args: { input: t.arg({ type: TicketStatusInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const data = await parseInputReportingAll(CreateTicketStatusInput, input, ctx, () => uniqueStatusName.probe(ctx, input.name));
      let order = data.order;
      if (order === undefined) {
        const { _max } = await ctx.db.ticketStatus.aggregate({ _max: { order: true } });
        order = _max.order === null ? 0 : _max.order + 1;
      }
      return ctx.db.ticketStatus.create({ ...query, data: { ...data, ...newRow(ctx.workspace.id), order } }).catch((e) => Promise.reject(uniqueStatusName.taken(e)));
    },
  }),
  updateTicketStatus: t.prismaField({
    type: TicketStatus,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: TicketStatusInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.ticketStatus.findUnique({ where: { id }, select: { id: true } }))) throw notFound('Ticket status');
      const data = await parseInputReportingAll(UpdateTicketStatusInput, input, ctx, () => uniqueStatusName.probe(ctx, input.name, id));
      return ctx.db.ticketStatus.update({ ...query, where: { id }, data }).catch((e) => Promise.reject(uniqueStatusName.taken(e)));
    },
  }),
  deleteTicketStatus: t.id({
    args: { id: t.arg.id({ required: true }) },
    // One statement: the foreign key (onDelete: Restrict) refuses it while tickets use the status.
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.ticketStatus, id, 'Ticket status', 'The ticket status is used by tickets and cannot be deleted.'),
  }),
  createTicket: t.prismaField({
    type: Ticket,
    args: { input: t.arg({ type: TicketInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const { ticketStatusId, ...data } = parseInput(CreateTicketInput, input, ctx, await statusCheck(ctx, input));
      // Last within its status.
      return writeReferencing(
        () => statusCheck(ctx, input),
        () =>
          atomically(ctx.db, async (tx) => {
            const position = await lastPosition(tx, ctx.workspace.id, ticketStatusId);
            return tx.ticket.create({ ...query, data: { ...data, ...newRow(ctx.workspace.id), statusId: ticketStatusId, position } });
          }),
      );
    },
  }),
  updateTicket: t.prismaField({
    type: Ticket,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: TicketInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      if (!(await ctx.db.ticket.findUnique({ where: { id }, select: { id: true } }))) throw notFound('Ticket');
      const { ticketStatusId, ...data } = parseInput(UpdateTicketInput, input, ctx, await statusCheck(ctx, input));
      if (ticketStatusId === undefined) return ctx.db.ticket.update({ ...query, where: { id }, data });
      // Moving to another status puts the ticket last there; the same status keeps its place.
      // The ticket is locked before its status is read, so a concurrent move is never missed.
      return writeReferencing(
        () => statusCheck(ctx, input),
        () =>
          atomically(ctx.db, async (tx) => {
            await lockRow(tx, 'ticket', id);
            const { statusId } = await tx.ticket.findUniqueOrThrow({ where: { id }, select: { statusId: true } });
            const moved = ticketStatusId !== statusId;
            const position = moved ? await lastPosition(tx, ctx.workspace.id, ticketStatusId) : undefined;
            return tx.ticket.update({ ...query, where: { id }, data: { ...data, ...(moved ? { statusId: ticketStatusId, position } : {}) } });
          }),
      );
    },
  }),
  deleteTicket: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => moveToTrash(ctx, 'tickets', id),
  }),
}));
