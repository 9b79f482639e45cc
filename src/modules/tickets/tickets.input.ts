import { z } from 'zod';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { longText, text } from '../../validation/rules.js';

const statusFields = {
  name: text(255),
  order: z.number().int().min(-1_000_000).max(1_000_000),
  isClosed: z.boolean(),
};

export const CreateTicketStatusInput = z.object(statusFields).partial({ order: true, isClosed: true });
export const UpdateTicketStatusInput = z.object(statusFields).partial();
/** The lists' sorting (API.md section 8). */
export const TICKET_STATUS_LIST = listSpec('ticket-statuses', 'TicketStatus');
export const TicketStatusListArgs = z.object(listRules);

const ticketFields = {
  title: text(255),
  description: longText().nullable(),
  // Checked against the workspace's statuses (tickets.schema.ts).
  ticketStatusId: z.string().min(1).max(64),
};

export const CreateTicketInput = z.object(ticketFields).partial({ description: true });
export const UpdateTicketInput = z.object(ticketFields).partial();

export const TICKET_LIST = listSpec('tickets', 'Ticket', ['position'], 'position');

export const TicketListArgs = z.object({
  ...listRules,
  ticketStatusId: z.string().max(64).optional(),
});
