import { newRow } from '../../db/tenancy.js';
import { builder } from '../../graphql/builder.js';
import { createAndUpdateInputs } from '../../graphql/inputs.js';
import type { Context } from '../../graphql/context.js';
import { invalid } from '../../graphql/errors.js';
import { listArgs, listInput, pageType, paginate } from '../../graphql/pagination.js';
import { deleteById, orNotFound } from '../../graphql/records.js';
import { unknownId, writeReferencing } from '../../validation/ids.js';
import { parseInput, parseInputReportingAll } from '../../validation/parse.js';
import { uniqueValue } from '../../validation/unique.js';
import { PAYMENT_COUPON_LIST, COUPON_TYPES, CreatePaymentCouponInput, PaymentCouponListArgs, UpdatePaymentCouponInput, couponCode, couponCodeKey } from './payment-coupons.input.js';

const RESOURCE = 'Payment coupon';

export const CouponTypeEnum = builder.enumType('PaymentCouponType', { values: COUPON_TYPES });

export const PaymentCoupon = builder.prismaObject('PaymentCoupon', {
  fields: (t) => ({
    id: t.exposeID('id'),
    code: t.exposeString('code'),
    type: t.field({ type: CouponTypeEnum, resolve: (c) => c.type as (typeof COUPON_TYPES)[number] }),
    value: t.expose('value', { type: 'Decimal', description: 'An amount in the link currency, or a percentage (at most 100).' }),
    maxRedemptions: t.exposeInt('maxRedemptions', { nullable: true }),
    isActive: t.exposeBoolean('isActive'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    timesRedeemed: t.exposeInt('timesRedeemed'),
    paymentLinkId: t.exposeID('paymentLinkId'),
    paymentLink: t.relation('paymentLink'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const PaymentCouponPage = pageType('PaymentCoupon', PaymentCoupon);

const PaymentCouponInputs = createAndUpdateInputs('PaymentCoupon', { create: CreatePaymentCouponInput, update: UpdatePaymentCouponInput }, (t) => ({
  code: t.string({ description: '1..64 of A-Z a-z 0-9 _ -; unique per workspace, ignoring case.' }),
  type: t.field({ type: CouponTypeEnum }),
  value: t.field({ type: 'Decimal' }),
  maxRedemptions: t.int({ description: 'Never below timesRedeemed.' }),
  isActive: t.boolean(),
  expiresAt: t.field({ type: 'DateTime' }),
  paymentLinkId: t.id({ description: 'The link the coupon applies to; another id moves it.' }),
}));

const PaymentCouponFilter = builder.inputType('PaymentCouponFilter', {
  fields: (t) => ({ paymentLinkId: t.id() }),
});

const uniqueCode = uniqueValue('code', couponCode, (ctx, code) => ctx.db.paymentCoupon.findFirst({ where: { codeKey: couponCodeKey(code) }, select: { id: true } }));

const linkCheck = (ctx: Context, input: { paymentLinkId?: string | null }) => unknownId(ctx.db.paymentLink, input.paymentLinkId, 'payment_link_id');

const belowRedeemed = (timesRedeemed: number) => ({ max_redemptions: [`The max redemptions field must be at least ${timesRedeemed}, the times already redeemed.`] });

builder.queryFields((t) => ({
  paymentCoupon: t.prismaField({
    type: PaymentCoupon,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => orNotFound(ctx.db.paymentCoupon.findUnique({ ...query, where: { id } }), RESOURCE),
  }),
  paymentCoupons: t.field({
    type: PaymentCouponPage,
    args: { ...listArgs(t, PAYMENT_COUPON_LIST), filter: t.arg({ type: PaymentCouponFilter }) },
    resolve: (_root, args, ctx, info) => {
      const { paymentLinkId, ...listing } = parseInput(PaymentCouponListArgs, { ...args.filter, ...listInput(args) }, ctx);
      return paginate(ctx.db.paymentCoupon, PAYMENT_COUPON_LIST, { ...listing, where: { paymentLinkId } }, ctx, info);
    },
  }),
}));

builder.mutationFields((t) => ({
  createPaymentCoupon: t.prismaField({
    type: PaymentCoupon,
    args: { input: t.arg({ type: PaymentCouponInputs.create, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const data = await parseInputReportingAll(CreatePaymentCouponInput, input, ctx, () => uniqueCode.probe(ctx, input.code), await linkCheck(ctx, input));
      return writeReferencing(
        () => linkCheck(ctx, input),
        () => ctx.db.paymentCoupon.create({ ...query, data: { ...data, ...newRow(ctx.workspace.id), codeKey: couponCodeKey(data.code) } }),
      ).catch((e) => Promise.reject(uniqueCode.taken(e)));
    },
  }),
  updatePaymentCoupon: t.prismaField({
    type: PaymentCoupon,
    description: 'Requires code, type and value; other fields change only when sent.',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: PaymentCouponInputs.update, required: true }) },
    resolve: async (query, _root, { id, input }, ctx) => {
      const stored = await orNotFound(ctx.db.paymentCoupon.findUnique({ where: { id }, select: { timesRedeemed: true } }), RESOURCE);
      // A request refused anyway also hears about a taken code and a limit below the redemptions so far.
      const alsoWhenRefused = async () => ({
        ...(await uniqueCode.probe(ctx, input.code, id)),
        ...(typeof input.maxRedemptions === 'number' && input.maxRedemptions < stored.timesRedeemed ? belowRedeemed(stored.timesRedeemed) : {}),
      });
      const data = await parseInputReportingAll(UpdatePaymentCouponInput, input, ctx, alsoWhenRefused, await linkCheck(ctx, input));
      // One conditional statement: a limit below the redemptions counted at that moment is not written.
      const { count } = await writeReferencing(
        () => linkCheck(ctx, input),
        () =>
          ctx.db.paymentCoupon.updateMany({
            where: { id, ...(typeof data.maxRedemptions === 'number' ? { timesRedeemed: { lte: data.maxRedemptions } } : {}) },
            data: { ...data, codeKey: couponCodeKey(data.code) },
          }),
      ).catch((e) => Promise.reject(uniqueCode.taken(e)));
      const coupon = await orNotFound(ctx.db.paymentCoupon.findUnique({ ...query, where: { id } }), RESOURCE);
      if (count === 0) throw invalid(belowRedeemed(coupon.timesRedeemed));
      return coupon;
    },
  }),
  deletePaymentCoupon: t.id({
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => deleteById(ctx.db.paymentCoupon, id, RESOURCE),
  }),
}));
