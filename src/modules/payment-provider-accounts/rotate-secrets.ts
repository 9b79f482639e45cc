import type { Db } from '../../db/client.js';
import { type SecretBox, SecretsUnreadable } from '../../payments/secrets.js';

const BATCH = 100;

/**
 * `secrets rotate` (API.md section 11): every account's sealed credentials sealed again
 * with SECRETS_KEY's first key, page by page. Each row is replaced only if it is still
 * what was read (a conditional update), so a credentials change made meanwhile is kept.
 * Rows no configured key opens are counted, never changed.
 */
export async function rotateAccountSecrets(prisma: Db, secrets: SecretBox): Promise<{ rotated: number; current: number; unreadable: number }> {
  const counts = { rotated: 0, current: 0, unreadable: 0 };
  let after = '';
  for (;;) {
    const page = await prisma.paymentProviderAccount.findMany({ where: { id: { gt: after }, sealedCredentials: { not: null } }, orderBy: { id: 'asc' }, take: BATCH, select: { id: true, sealedCredentials: true } });
    if (page.length === 0) return counts;
    for (const { id, sealedCredentials } of page) {
      const sealed = sealedCredentials!;
      if (secrets.sealedWithCurrent(sealed)) {
        counts.current += 1;
        continue;
      }
      let plain: string;
      try {
        plain = secrets.open(sealed);
      } catch (error) {
        if (!(error instanceof SecretsUnreadable)) throw error;
        counts.unreadable += 1;
        continue;
      }
      const { count } = await prisma.paymentProviderAccount.updateMany({ where: { id, sealedCredentials: sealed }, data: { sealedCredentials: secrets.seal(plain) } });
      counts.rotated += count;
    }
    after = page.at(-1)!.id;
  }
}
