import { listDocument, routes, restoreRoute } from '../../rest/route.js';
import { TICKET_LIST, TICKET_STATUS_LIST } from './tickets.input.js';

const STATUS = 'fragment TicketStatusFields on TicketStatus { id name order isClosed createdAt updatedAt }';
const TICKET = 'fragment TicketFields on Ticket { id title description ticketStatusId position createdAt updatedAt }';

export const ticketStatusRoutes = routes(
  {
    method: 'GET',
    path: '/ticket-statuses',
    document: `${listDocument(TICKET_STATUS_LIST, 'ticketStatuses', null, '...TicketStatusFields')} ${STATUS}`,
  },
  { method: 'GET', path: '/ticket-statuses/{id}', document: `query ($id: ID!) { ticketStatus(id: $id) { ...TicketStatusFields } } ${STATUS}` },
  {
    method: 'POST',
    path: '/ticket-statuses',
    document: `mutation ($input: CreateTicketStatusInput!) { createTicketStatus(input: $input) { ...TicketStatusFields } } ${STATUS}`,
  },
  {
    method: 'PUT',
    path: '/ticket-statuses/{id}',
    document: `mutation ($id: ID!, $input: UpdateTicketStatusInput!) { updateTicketStatus(id: $id, input: $input) { ...TicketStatusFields } } ${STATUS}`,
  },
  { method: 'DELETE', path: '/ticket-statuses/{id}', document: 'mutation ($id: ID!) { deleteTicketStatus(id: $id) }' },
);

export const ticketRoutes = routes(
  {
    method: 'GET',
    path: '/tickets',
    document: `${listDocument(TICKET_LIST, 'tickets', 'TicketFilter', '...TicketFields')} ${TICKET}`,
  },
  { method: 'GET', path: '/tickets/{id}', document: `query ($id: ID!) { ticket(id: $id) { ...TicketFields } } ${TICKET}` },
  { method: 'POST', path: '/tickets', document: `mutation ($input: CreateTicketInput!) { createTicket(input: $input) { ...TicketFields } } ${TICKET}` },
  { method: 'PUT', path: '/tickets/{id}', document: `mutation ($id: ID!, $input: UpdateTicketInput!) { updateTicket(id: $id, input: $input) { ...TicketFields } } ${TICKET}` },
  { method: 'DELETE', path: '/tickets/{id}', document: 'mutation ($id: ID!) { deleteTicket(id: $id) }' },
  restoreRoute('tickets', 'restoreTicket', TICKET),
);
