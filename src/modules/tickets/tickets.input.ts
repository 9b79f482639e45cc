import { z } from 'zod';
import { pageRules } from '../../graphql/pagination.js';
import { longText, text } from '../../validation/rules.js';

const statusFields = {
  name: text(255),
  order: z.number().int().min(-1_000_000).max(1_000_000),
  isClosed: z.boolean(),
};

export const CreateTicketStatusInput = z.object(statusFields).partial({ order: true, isClosed: true });
export const UpdateTicketStatusInput = z.object(statusFields).partial();
export const TicketStatusListArgs = z.object(pageRules);

const ticketFields = {
  title: text(255),
  description: longText().nullable(),
  // Checked against the workspace's statuses (tickets.schema.ts).
  ticketStatusId: z.string().min(1).max(64),
};

export const CreateTicketInput = z.object(ticketFields).partial({ description: true });
export const UpdateTicketInput = z.object(ticketFields).partial();

export const TicketListArgs = z.object({
  ...pageRules,
  ticketStatusId: z.string().max(64).optional(),
});
