import { type Tx, lockRow } from '../../db/locks.js';

/** A checkout's transaction in one of these gives its coupon redemption back. */
const RELEASING = new Set(['failed', 'canceled']);

interface CouponLimits {
  isActive: boolean;
  expiresAt: Date | null;
  maxRedemptions: number | null;
  timesRedeemed: number;
}

/** Whether a checkout may take one more redemption of the coupon at `now`. */
export const redeemable = (coupon: CouponLimits, now: Date): boolean =>
  coupon.isActive && (coupon.expiresAt === null || coupon.expiresAt > now) && (coupon.maxRedemptions === null || coupon.timesRedeemed < coupon.maxRedemptions);

/**
 * Takes one redemption of the coupon, or answers false when it has none left (or is
 * inactive or expired). The coupon's row is locked first: concurrent checkouts take
 * turns on it, so `times_redeemed` never passes `max_redemptions`.
 */
export async function takeRedemption(tx: Tx, couponId: string, now: Date): Promise<boolean> {
  await lockRow(tx, 'paymentCoupon', couponId);
  const coupon = await tx.paymentCoupon.findUnique({ where: { id: couponId }, select: { isActive: true, expiresAt: true, maxRedemptions: true, timesRedeemed: true } });
  if (!coupon || !redeemable(coupon, now)) return false;
  await tx.paymentCoupon.update({ where: { id: couponId }, data: { timesRedeemed: { increment: 1 } }, select: { id: true } });
  return true;
}

/**
 * After a transaction's status moved (ingestion, in its transaction): a checkout whose
 * transaction is no longer pending stops expiring, and one that ended failed or
 * canceled gives its redemption back. The conditional update on `couponReleasedAt`
 * makes that happen once, whatever order and however often the events arrive.
 */
export async function settleCheckout(tx: Tx, transactionId: string, status: string): Promise<void> {
  if (status === 'pending') return;
  // No longer open to expiry; and, once settled (not on its way), no longer looked up at its provider (reconcile.ts).
  const settled = status !== 'processing';
  await tx.checkout.updateMany({
    where: { transactionId, OR: [{ expiresAt: { not: null } }, ...(settled ? [{ reconcileAt: { not: null } }] : [])] },
    data: { expiresAt: null, ...(settled ? { reconcileAt: null } : {}) },
  });
  if (!RELEASING.has(status)) return;
  const released = await tx.checkout.updateManyAndReturn({
    where: { transactionId, couponId: { not: null }, couponReleasedAt: null },
    data: { couponReleasedAt: new Date() },
    select: { couponId: true },
  });
  for (const { couponId } of released) {
    await tx.paymentCoupon.updateMany({ where: { id: couponId!, timesRedeemed: { gt: 0 } }, data: { timesRedeemed: { decrement: 1 } } });
  }
}
