import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Secrets at rest (API.md section 11): provider credentials are stored sealed with
 * AES-256-GCM under SECRETS_KEY. SECRETS_KEY is a comma-separated list of 32-byte keys
 * (base64 or hex): the first seals, any opens, so a new key goes first and `secrets
 * rotate` re-seals what the old ones sealed. Unset, one key is kept in SECRETS_KEY_FILE,
 * made on first need (mode 0600), so the embedded default needs no setting.
 *
 * A sealed value reads `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url): the key id (the
 * first 8 bytes of the key's SHA-256) picks the key that opens it without trying each.
 * This is the only module that sees a key.
 */

const KEY_BYTES = 32;
const IV_BYTES = 12;
const VERSION = 'v1';

/** A sealed value that no configured key opens (a database moved without its key), or that was tampered with. */
export class SecretsUnreadable extends Error {
  constructor(reason: string) {
    super(`The stored credentials cannot be decrypted: ${reason}.`);
    this.name = 'SecretsUnreadable';
  }
}

/** One key of the list as bytes: 64 hex digits, or base64 of 32 bytes; anything else is refused by name, never used short. */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (bytes.length !== KEY_BYTES || (!/^[0-9a-fA-F]{64}$/.test(trimmed) && !/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed))) {
    throw new Error('each SECRETS_KEY entry must be 32 bytes, written as 64 hex digits or base64 (e.g. openssl rand -base64 32)');
  }
  return bytes;
}

/** SECRETS_KEY's list, first key first. */
export const parseSecretKeys = (list: string): Buffer[] => list.split(',').map((s) => s.trim()).filter(Boolean).map(parseSecretKey);

const keyId = (key: Buffer) => createHash('sha256').update(key).digest().subarray(0, 8).toString('base64url');

export interface SecretsSource {
  /** SECRETS_KEY, when set. */
  keys?: string;
  /** Where the key is kept when SECRETS_KEY is unset. */
  keyFile: string;
}

/** Seals and opens the service's stored secrets; its keys are read (or the key file made) on first need. */
export class SecretBox {
  #keys: { id: string; key: Buffer }[] | undefined;

  constructor(private readonly source: SecretsSource) {}

  #loaded() {
    this.#keys ??= (this.source.keys ? parseSecretKeys(this.source.keys) : [keyFromFile(this.source.keyFile)]).map((key) => ({ id: keyId(key), key }));
    if (this.#keys.length === 0) throw new Error('SECRETS_KEY names no key');
    return this.#keys;
  }

  /** `plain` sealed with the first key. */
  seal(plain: string): string {
    const { id, key } = this.#loaded()[0]!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  /** What `sealed` holds; SecretsUnreadable when no key opens it. */
  open(sealed: string): string {
    const [version, id, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || ciphertext === undefined) throw new SecretsUnreadable('not a sealed value');
    const entry = this.#loaded().find((k) => k.id === id);
    if (!entry) throw new SecretsUnreadable('none of the keys in SECRETS_KEY sealed them');
    try {
      const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(iv!, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag!, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretsUnreadable('they were altered');
    }
  }

  /** Whether `sealed` is sealed with the first key already (rotation skips it). */
  sealedWithCurrent(sealed: string): boolean {
    return sealed.split('.')[1] === this.#loaded()[0]!.id;
  }
}

/**
 * The key kept in `path`, made when the file does not exist yet. Made with `wx`, so two
 * processes starting at once agree: the loser of the race reads the winner's key.
 */
function keyFromFile(path: string): Buffer {
  try {
    return parseSecretKey(readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(path), { recursive: true });
  try {
    writeFileSync(path, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    chmodSync(path, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return parseSecretKey(readFileSync(path, 'utf8'));
}
