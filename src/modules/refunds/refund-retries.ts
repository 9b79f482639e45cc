import type { Db } from '../../db/client.js';
import type { Represent } from '../../events/representation.js';
import { type CommitNotices, type Settings, systemContext } from '../../graphql/context.js';
import type { Loop } from '../../jobs/loops.js';
import { sendRefund } from './refunds.schema.js';

const BATCH = 50;
const ROUND_MS = 30_000;

/**
 * Sends again the refunds a provider has not answered (unreachable, or a process that
 * died between the refund's commit and the answer), due by `attemptAt` (an index: the
 * answered ones have none), oldest first. Returns how many it tried.
 */
export async function retryRefunds(prisma: Db, represent: Represent, settings: Settings, { now = new Date(), stopping = () => false, commits }: { now?: Date; stopping?: () => boolean; commits?: CommitNotices } = {}): Promise<number> {
  const due = await prisma.paymentRefund.findMany({
    where: { attemptAt: { lte: now }, status: 'pending' },
    orderBy: { attemptAt: 'asc' },
    take: BATCH,
    select: { id: true, workspace: { select: { id: true, defaultCurrency: true } } },
  });
  for (const refund of due) {
    if (stopping()) break;
    await sendRefund(systemContext(prisma, refund.workspace, settings, commits), represent, refund.id);
  }
  return due.length;
}

/** The refunds' retries, every 30 seconds (sooner while a round finds a full batch) in every serving process. */
export function refundRetryLoop(prisma: Db, represent: Represent, commits: CommitNotices, settings: Settings): Loop {
  return {
    name: 'refund-retries',
    async run(stopping) {
      return (await retryRefunds(prisma, represent, settings, { stopping, commits })) === BATCH ? 0 : ROUND_MS;
    },
  };
}
