import type { Db } from '../../db/client.js';
import { writeWithEvents } from '../../events/outbox.js';
import type { Represent } from '../../events/representation.js';
import { type CommitNotices, type Settings, systemContext } from '../../graphql/context.js';
import type { Loop } from '../../jobs/loops.js';
import { type TrashType, purgeFromTrash } from './trash.js';

const BATCH = 100;
const ROUND_MS = 60_000;

/**
 * Purges what has been in the trash for TRASH_RETENTION_DAYS (`purgeAt`, an index),
 * oldest first, each in a transaction of its own with its `purged` event. Returns how
 * many it purged.
 */
export async function purgeExpiredTrash(prisma: Db, represent: Represent, settings: Settings, { now = new Date(), stopping = () => false, commits }: { now?: Date; stopping?: () => boolean; commits?: CommitNotices } = {}): Promise<number> {
  const due = await prisma.trashedRecord.findMany({
    where: { purgeAt: { lte: now } },
    orderBy: { purgeAt: 'asc' },
    take: BATCH,
    select: { id: true, type: true, workspace: { select: { id: true, defaultCurrency: true } } },
  });
  let purged = 0;
  for (const trashed of due) {
    if (stopping()) break;
    const context = systemContext(prisma, trashed.workspace, settings, commits);
    // Another process may have purged or restored it meanwhile: then there is nothing to do.
    const gone = await writeWithEvents(context, represent, { actor: context.actor, requestId: null }, (db) => purgeFromTrash({ ...context, db }, trashed.type as TrashType, trashed.id).then(() => true, () => false));
    if (gone.result) purged += 1;
  }
  return purged;
}

/** The trash's purge, every minute (sooner while a round finds a full batch), in every serving process. */
export function trashPurgeLoop(prisma: Db, represent: Represent, commits: CommitNotices, settings: Settings): Loop {
  return {
    name: 'trash-purge',
    async run(stopping) {
      return (await purgeExpiredTrash(prisma, represent, settings, { stopping, commits })) === BATCH ? 0 : ROUND_MS;
    },
  };
}
