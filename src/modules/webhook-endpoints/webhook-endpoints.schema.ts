import { builder } from '../../graphql/builder.js';
import type { Context } from '../../graphql/context.js';
import { invalid, notFound } from '../../graphql/errors.js';
import type { FieldErrors } from '../../validation/messages.js';
import { inputTypeFrom, createAndUpdateInputs } from '../../graphql/inputs.js';
import { listArgs, listInput, pagedRelation, pageType, paginate } from '../../graphql/pagination.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import { lockRow } from '../../db/locks.js';
import { newId } from '../../db/ids.js';
import { newRow } from '../../db/tenancy.js';
import { parseInput } from '../../validation/parse.js';
import { typeMatches } from '../../events/resources.js';
import { MAX_WEBHOOK_URL_LENGTH, checkWebhookUrl } from '../../webhooks/address-guard.js';
import { deliveryRow, endpointPatterns } from '../../events/deliveries.js';
import { newWebhookSecret } from '../../webhooks/signing.js';
import {
  CreateWebhookEndpointInput,
  DELIVERY_STATUSES,
  ReplayInput,
  UpdateWebhookEndpointInput,
  WEBHOOK_DELIVERY_LIST,
  WEBHOOK_ENDPOINT_LIST,
  WebhookDeliveryListArgs,
  WebhookEndpointListArgs,
} from './webhook-endpoints.input.js';

/** How long the secret before a rotation still signs. */
const ROTATION_OVERLAP_MS = 24 * 3_600_000;
/** The most events one replay queues: a larger replay is refused, to be split by `since`. */
export const MAX_REPLAY = 10_000;

const DeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', { values: DELIVERY_STATUSES });

// The field builder both endpoint types share (the secret variant adds one field).
type EndpointFieldBuilder = Parameters<NonNullable<Parameters<typeof builder.prismaObject<'WebhookEndpoint', any, any, any, any>>[1]['fields']>>[0];
const endpointFields = (t: EndpointFieldBuilder) => ({
  id: t.exposeID('id'),
  url: t.exposeString('url'),
  description: t.exposeString('description', { nullable: true }),
  events: t.field({ type: ['String'], description: 'Patterns: an exact event type, `<resource>.*` or `*`.', resolve: (e) => endpointPatterns(e.events) }),
  isActive: t.exposeBoolean('isActive'),
  disabledReason: t.exposeString('disabledReason', { nullable: true, description: '`failing` when the service disabled the endpoint after failed attempts.' }),
  createdAt: t.expose('createdAt', { type: 'DateTime' }),
  updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
});

export const WebhookEndpoint = builder.prismaObject('WebhookEndpoint', {
  description: 'A URL the workspace\'s events are sent to, signed with its secret (shown only by create and rotate).',
  fields: (t) => ({
    ...endpointFields(t),
    deliveries: t.relation('deliveries', { description: 'Its deliveries, newest first.', ...pagedRelation(t, { id: 'desc' }) }),
  }),
});

/** The answer of create and rotate: the endpoint and, this once, its secret. */
const WebhookEndpointWithSecret = builder.prismaObject('WebhookEndpoint', {
  variant: 'WebhookEndpointWithSecret',
  fields: (t) => ({ ...endpointFields(t), secret: t.exposeString('secret', { description: 'The signing secret (`whsec_...`): shown only now.' }) }),
});

export const WebhookDelivery = builder.prismaObject('WebhookDelivery', {
  description: 'One event sent to one endpoint, and how its attempts went.',
  fields: (t) => ({
    id: t.exposeID('id'),
    endpointId: t.exposeID('endpointId'),
    eventId: t.exposeID('eventId'),
    eventType: t.exposeString('eventType'),
    status: t.field({ type: DeliveryStatusEnum, resolve: (d) => d.status as (typeof DELIVERY_STATUSES)[number] }),
    attempts: t.exposeInt('attempts'),
    lastAttemptAt: t.expose('lastAttemptAt', { type: 'DateTime', nullable: true }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
    responseStatus: t.exposeInt('responseStatus', { nullable: true }),
    responseBody: t.exposeString('responseBody', { nullable: true, description: 'At most the first 1,024 characters of the last answer.' }),
    error: t.exposeString('error', { nullable: true, description: '`timeout`, `connection_failed`, `blocked_address` or `redirect`.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const WebhookEndpointPage = pageType('WebhookEndpoint', WebhookEndpoint);
const WebhookDeliveryPage = pageType('WebhookDelivery', WebhookDelivery);

const EndpointInputs = createAndUpdateInputs('WebhookEndpoint', { create: CreateWebhookEndpointInput, update: UpdateWebhookEndpointInput }, (t) => ({
  url: t.string(),
  description: t.string(),
  events: t.stringList(),
  isActive: t.boolean(),
}));

const ReplayWebhookEndpointInput = inputTypeFrom('ReplayWebhookEndpointInput', ReplayInput, (t) => ({
  since: t.field({ type: 'DateTime', description: 'Every kept event created at or after this instant is queued again.' }),
}));

const WebhookDeliveryFilter = builder.inputType('WebhookDeliveryFilter', {
  fields: (t) => ({ status: t.field({ type: DeliveryStatusEnum }) }),
});

const ReplayResult = builder.objectRef<{ queued: number }>('WebhookReplayResult').implement({
  fields: (t) => ({ queued: t.exposeInt('queued', { description: 'How many deliveries were queued.' }) }),
});

/** The URL's rules beyond its length (scheme, user info, its host's addresses), reported with the input's other problems. */
async function urlErrors(ctx: Context, url: unknown): Promise<FieldErrors> {
  if (typeof url !== 'string' || url.trim() === '' || url.length > MAX_WEBHOOK_URL_LENGTH) return {};
  const problem = await checkWebhookUrl(url.trim(), { allowPrivate: ctx.settings.allowPrivateNetworks });
  return problem ? { url: [problem] } : {};
}

const endpointExists = (ctx: Context, id: string) => orNotFound(ctx.db.webhookEndpoint.findUnique({ where: { id }, select: { id: true } }), 'Webhook endpoint');

/** The delivery worker of this process starts at once, after the commit. */
const wakeAfterCommit = (ctx: Context) => {
  const wake = ctx.commits?.deliveriesQueued;
  if (wake) (ctx.afterCommit ?? ((fn) => fn()))(wake);
};

builder.queryFields((t) => ({
  webhookEndpoint: t.prismaField({
    type: WebhookEndpoint,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.webhookEndpoint.findUnique({ ...query, where: { id } }), 'Webhook endpoint'),
  }),
  webhookEndpoints: t.field({
    type: WebhookEndpointPage,
    args: listArgs(t, WEBHOOK_ENDPOINT_LIST),
    resolve: (_root, args, ctx, info) => {
      const listing = parseInput(WebhookEndpointListArgs, listInput(args), ctx);
      return paginate(ctx.db.webhookEndpoint, WEBHOOK_ENDPOINT_LIST, { ...listing, where: {} }, ctx, info);
    },
  }),
  webhookDelivery: t.prismaField({
    type: WebhookDelivery,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.webhookDelivery.findUnique({ ...query, where: { id } }), 'Webhook delivery'),
  }),
  webhookDeliveries: t.field({
    type: WebhookDeliveryPage,
    description: "An endpoint's deliveries, newest first.",
    args: { endpointId: t.arg.id({ required: true }), ...listArgs(t, WEBHOOK_DELIVERY_LIST), filter: t.arg({ type: WebhookDeliveryFilter }) },
    resolve: async (_root, args, ctx, info) => {
      await endpointExists(ctx, args.endpointId);
      const { status, ...listing } = parseInput(WebhookDeliveryListArgs, { ...args.filter, ...listInput(args) }, ctx);
      return paginate(ctx.db.webhookDelivery, WEBHOOK_DELIVERY_LIST, { ...listing, where: { endpointId: args.endpointId, status } }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.prismaField({
    type: WebhookEndpointWithSecret,
    args: { input: t.arg({ type: EndpointInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const data = parseInput(CreateWebhookEndpointInput, input, ctx, await urlErrors(ctx, input.url));
      return ctx.db.webhookEndpoint.create({
        ...query,
        data: { ...newRow(ctx.workspace.id), url: data.url, description: data.description ?? null, events: JSON.stringify([...new Set(data.events)]), isActive: data.isActive ?? true, secret: newWebhookSecret() },
      });
    },
  }),
  updateWebhookEndpoint: t.prismaField({
    type: WebhookEndpoint,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: EndpointInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      await endpointExists(ctx, id);
      const { events, ...data } = parseInput(UpdateWebhookEndpointInput, input, ctx, await urlErrors(ctx, input.url));
      // Activating clears the reason the service gave for disabling it, and its count of failures.
      const activation = data.isActive ? { disabledReason: null, consecutiveFailures: 0 } : {};
      return ctx.db.webhookEndpoint.update({ ...query, where: { id }, data: { ...data, ...activation, ...(events ? { events: JSON.stringify([...new Set(events)]) } : {}) } });
    },
  }),
  deleteWebhookEndpoint: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.webhookEndpoint, id, 'Webhook endpoint'),
  }),
  rotateWebhookEndpointSecret: t.prismaField({
    type: WebhookEndpointWithSecret,
    description: 'A new secret; for 24 hours deliveries carry signatures from both.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      await lockRow(ctx.db, 'webhookEndpoint', id);
      const { secret } = await ctx.db.webhookEndpoint.findUniqueOrThrow({ where: { id }, select: { secret: true } });
      return ctx.db.webhookEndpoint.update({
        ...query,
        where: { id },
        data: { secret: newWebhookSecret(), previousSecret: secret, previousSecretExpiresAt: new Date(Date.now() + ROTATION_OVERLAP_MS) },
      });
    },
  }),
  testWebhookEndpoint: t.prismaField({
    type: WebhookDelivery,
    description: 'Sends a `webhook_endpoint.test` event to this endpoint alone, whatever its patterns; the event is not kept in the log.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      // The endpoint as its GET answers, as every event's object is.
      const object = await ctx.represent!('webhook_endpoint', id, ctx);
      if (!object) throw notFound('Webhook endpoint');
      const now = new Date();
      const event = {
        id: newId(),
        workspaceId: ctx.workspace.id,
        type: 'webhook_endpoint.test',
        resource: 'webhook_endpoint',
        recordId: id,
        actor: JSON.stringify(ctx.actor),
        requestId: ctx.requestId,
        data: JSON.stringify({ object, previous_attributes: null }),
        createdAt: now,
      };
      const row = deliveryRow(event, id, now);
      wakeAfterCommit(ctx);
      return ctx.db.webhookDelivery.create({ ...query, data: row });
    },
  }),
  retryWebhookDelivery: t.prismaField({
    type: WebhookDelivery,
    description: 'Attempts the delivery again at once; a failed one becomes pending.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const { count } = await ctx.db.webhookDelivery.updateMany({ where: { id }, data: { status: 'pending', nextAttemptAt: new Date() } });
      if (count === 0) throw notFound('Webhook delivery');
      wakeAfterCommit(ctx);
      return ctx.db.webhookDelivery.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  replayWebhookEndpoint: t.field({
    type: ReplayResult,
    description: `Queues again every kept event since \`since\` that matches the endpoint's patterns (at most ${MAX_REPLAY}).`,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: ReplayWebhookEndpointInput, required: true }) },
    resolve: async (_root, { id, input }, ctx) => {
      const endpoint = await orNotFound(ctx.db.webhookEndpoint.findUnique({ where: { id }, select: { id: true, events: true } }), 'Webhook endpoint');
      const { since } = parseInput(ReplayInput, input, ctx);
      const patterns = endpointPatterns(endpoint.events);
      const everything = patterns.includes('*');
      const where = {
        createdAt: { gte: since },
        ...(everything ? {} : { OR: [{ type: { in: patterns.filter((p) => !p.endsWith('.*')) } }, { resource: { in: patterns.filter((p) => p.endsWith('.*')).map((p) => p.slice(0, -2)) } }] }),
      };
      if ((await ctx.db.event.count({ where })) > MAX_REPLAY) throw invalid({ since: [`More than ${MAX_REPLAY} events match: replay a later since.`] });
      const events = await ctx.db.event.findMany({ where, orderBy: { id: 'asc' } });
      const now = new Date();
      const rows = events.filter((e) => patterns.some((p) => typeMatches(p, e.type))).map((e) => deliveryRow(e, endpoint.id, now));
      if (rows.length > 0) await ctx.db.webhookDelivery.createMany({ data: rows });
      wakeAfterCommit(ctx);
      return { queued: rows.length };
    },
  }),
}));
