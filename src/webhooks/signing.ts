import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new endpoint secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export type WebhookHeaders = { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };

/**
 * The three Standard Webhooks headers of each attempt signed with `secrets` (two during
 * a rotation: one `v1,<sig>` each, space-separated). Signed by the reference library
 * itself, so receivers using it verify; its key is decoded once per signer, not per attempt.
 */
export function webhookSigner(secrets: string[]): (id: string, timestamp: Date, body: string) => WebhookHeaders {
  const keys = secrets.map((secret) => new Webhook(secret));
  return (id, timestamp, body) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': keys.map((key) => key.sign(id, timestamp, body)).join(' '),
  });
}

/**
 * Whether `body` carries a valid Standard Webhooks signature by `secret` in `headers`,
 * sent at most 5 minutes from now (the library's tolerance, against replays).
 */
export function verifySignature(secret: string, body: Buffer, headers: Headers): boolean {
  try {
    new Webhook(secret).verify(body, {
      'webhook-id': headers.get('webhook-id') ?? '',
      'webhook-timestamp': headers.get('webhook-timestamp') ?? '',
      'webhook-signature': headers.get('webhook-signature') ?? '',
    });
    return true;
  } catch {
    return false;
  }
}
