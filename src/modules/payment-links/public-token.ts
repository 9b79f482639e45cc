import { randomBytes } from 'node:crypto';

/**
 * A payment link's public token: 32 random bytes as base64url, 43 URL-safe
 * characters (256 bits). The column is unique and links are never deleted, so a
 * token is never reused.
 */
export const newPublicToken = (): string => randomBytes(32).toString('base64url');
