import { z } from 'zod';
import { EVENT_RESOURCE_NAMES } from '../../events/resources.js';
import { listRules } from '../../graphql/pagination.js';
import { listSpec } from '../../graphql/sorting.js';
import { longText } from '../../validation/rules.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../../webhooks/address-guard.js';

export const MAX_PATTERNS = 50;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** `*`, `<resource>.*` or an exact `<resource>.created|updated|deleted`. */
const isPattern = (p: string) => {
  if (p === '*') return true;
  const [resource, kind, ...rest] = p.split('.');
  return rest.length === 0 && (EVENT_RESOURCE_NAMES as string[]).includes(resource!) && ['*', 'created', 'updated', 'deleted'].includes(kind ?? '');
};

const fields = {
  // The address rules (scheme, length, user info, private networks) are checked by the resolver, which resolves the host.
  url: z.string().trim().min(1).max(MAX_WEBHOOK_URL_LENGTH),
  description: longText().nullable(),
  events: z
    .array(z.string().refine(isPattern, { message: 'The :attribute field must be an event type, <resource>.* or *.' }))
    .min(1)
    .max(MAX_PATTERNS),
  isActive: z.boolean(),
};

export const CreateWebhookEndpointInput = z.object(fields).partial({ description: true, isActive: true });
export const UpdateWebhookEndpointInput = z.object(fields).partial();

/** The lists' sorting (API.md section 8): deliveries newest first. */
export const WEBHOOK_ENDPOINT_LIST = listSpec('webhook-endpoints', 'WebhookEndpoint');
export const WEBHOOK_DELIVERY_LIST = listSpec('webhook-deliveries', 'WebhookDelivery', [], '-id');

export const WebhookEndpointListArgs = z.object(listRules);
export const WebhookDeliveryListArgs = z.object({ ...listRules, status: z.enum(DELIVERY_STATUSES).optional() });
export const ReplayInput = z.object({ since: z.date() });
