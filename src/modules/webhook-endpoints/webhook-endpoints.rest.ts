import { listDocument, routes } from '../../rest/route.js';
import { WEBHOOK_DELIVERY_LIST, WEBHOOK_ENDPOINT_LIST } from './webhook-endpoints.input.js';

const ENDPOINT = 'fragment WebhookEndpointFields on WebhookEndpoint { id url description events isActive disabledReason createdAt updatedAt }';
const WITH_SECRET = 'fragment WebhookEndpointWithSecretFields on WebhookEndpointWithSecret { id url description events isActive disabledReason createdAt updatedAt secret }';
const DELIVERY =
  'fragment WebhookDeliveryFields on WebhookDelivery { id endpointId eventId eventType status attempts lastAttemptAt nextAttemptAt responseStatus responseBody error createdAt }';

export const webhookEndpointRoutes = routes(
  {
    method: 'GET',
    path: '/webhook-endpoints',
    document: `${listDocument(WEBHOOK_ENDPOINT_LIST, 'webhookEndpoints', null, '...WebhookEndpointFields')} ${ENDPOINT}`,
  },
  { method: 'GET', path: '/webhook-endpoints/{id}', document: `query ($id: ID!) { webhookEndpoint(id: $id) { ...WebhookEndpointFields } } ${ENDPOINT}` },
  { method: 'POST', path: '/webhook-endpoints', document: `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { ...WebhookEndpointWithSecretFields } } ${WITH_SECRET}` },
  {
    method: 'PUT',
    path: '/webhook-endpoints/{id}',
    document: `mutation ($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { ...WebhookEndpointFields } } ${ENDPOINT}`,
  },
  { method: 'DELETE', path: '/webhook-endpoints/{id}', document: 'mutation ($id: ID!) { deleteWebhookEndpoint(id: $id) }' },
  {
    method: 'POST',
    path: '/webhook-endpoints/{id}/rotate-secret',
    document: `mutation ($id: ID!) { rotateWebhookEndpointSecret(id: $id) { ...WebhookEndpointWithSecretFields } } ${WITH_SECRET}`,
    status: 200,
  },
  { method: 'POST', path: '/webhook-endpoints/{id}/test', document: `mutation ($id: ID!) { testWebhookEndpoint(id: $id) { ...WebhookDeliveryFields } } ${DELIVERY}` },
  {
    method: 'GET',
    path: '/webhook-endpoints/{id}/deliveries',
    document: `${listDocument(WEBHOOK_DELIVERY_LIST, 'webhookDeliveries', 'WebhookDeliveryFilter', '...WebhookDeliveryFields', { id: 'endpointId' })} ${DELIVERY}`,
  },
  {
    method: 'POST',
    path: '/webhook-endpoints/{id}/replay',
    document: 'mutation ($id: ID!, $input: ReplayWebhookEndpointInput!) { replayWebhookEndpoint(id: $id, input: $input) { queued } }',
    status: 200,
  },
  { method: 'GET', path: '/webhook-deliveries/{id}', document: `query ($id: ID!) { webhookDelivery(id: $id) { ...WebhookDeliveryFields } } ${DELIVERY}` },
  { method: 'POST', path: '/webhook-deliveries/{id}/retry', document: `mutation ($id: ID!) { retryWebhookDelivery(id: $id) { ...WebhookDeliveryFields } } ${DELIVERY}`, status: 200 },
);
