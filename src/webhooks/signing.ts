import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new endpoint secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The `webhook-signature` value: one `v1,<sig>` per secret, space-separated (two during
 * a rotation). Signed by the reference library itself, so receivers using it verify.
 */
export function signatureHeader(secrets: string[], id: string, timestamp: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body)).join(' ');
}

/** The three Standard Webhooks headers of one attempt. */
export function webhookHeaders(
  secrets: string[],
  id: string,
  timestamp: Date,
  body: string,
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, id, timestamp, body),
  };
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
