import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/client.js';
import { newId } from '../db/ids.js';
import { workspaceNamed } from '../db/workspaces.js';
import { isUniqueViolation } from '../db/errors.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_LENGTH = 40; // random characters after "sg_": about 238 bits
const KEY_SHAPE = /^sg_[0-9A-Za-z]{32,128}$/;
const PREFIX_LENGTH = 'sg_'.length + 8;

/** `sg_` + 40 base62 characters from the CSPRNG (rejection sampling keeps them uniform). */
export function generateKey(): string {
  let out = 'sg_';
  while (out.length < 3 + KEY_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < 3 + KEY_LENGTH) out += BASE62[byte % 62];
    }
  }
  return out;
}

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export interface CreatedKey {
  id: string;
  workspaceId: string;
  key: string;
  prefix: string;
}

/**
 * Creates the workspace when it does not exist, then a key for it. The key is returned
 * once and never stored. `scopes`: already checked (parseScopes); default `write`.
 */
export async function createKey(prisma: Db, workspaceName: string, label = 'default', options: { scopes?: string[]; expiresInDays?: number } = {}): Promise<CreatedKey> {
  const workspace = await workspaceNamed(prisma, workspaceName);
  return insertKey(prisma, workspace.id, label, options);
}

/**
 * A first start's workspace and its key, made together, or undefined when another
 * process made them first: several processes may start at once on an empty database,
 * and the workspace's unique name lets one of them through.
 */
export async function createFirstKey(prisma: Db, workspaceName: string, label: string): Promise<CreatedKey | undefined> {
  try {
    return await prisma.$transaction(async (tx) => {
      const workspace = await tx.workspace.create({ data: { id: newId(), name: workspaceName }, select: { id: true } });
      return insertKey(tx, workspace.id, label);
    });
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

async function insertKey(prisma: Pick<Db, 'apiKey'>, workspaceId: string, label: string, options: { scopes?: string[]; expiresInDays?: number } = {}): Promise<CreatedKey> {
  const key = generateKey();
  const row = await prisma.apiKey.create({
    data: {
      id: newId(),
      workspaceId,
      name: label,
      prefix: key.slice(0, PREFIX_LENGTH),
      hash: hashKey(key),
      scopes: (options.scopes ?? ['write']).join(','),
      expiresAt: options.expiresInDays === undefined ? null : new Date(Date.now() + options.expiresInDays * 86_400_000),
    },
  });
  return { id: row.id, workspaceId, key, prefix: row.prefix };
}

export async function listKeys(prisma: Db, workspaceName: string) {
  return prisma.apiKey.findMany({
    where: { workspace: { name: workspaceName } },
    orderBy: { id: 'asc' },
    select: { id: true, name: true, prefix: true, scopes: true, expiresAt: true, createdAt: true, lastUsedAt: true, revokedAt: true },
  });
}

/** Revokes by key id or by prefix; a prefix must name exactly one live key. */
export async function revokeKey(prisma: Db, idOrPrefix: string): Promise<{ revoked: number; ambiguous: boolean }> {
  const matches = await prisma.apiKey.findMany({
    where: { revokedAt: null, OR: [{ id: idOrPrefix }, { prefix: { startsWith: idOrPrefix } }] },
    select: { id: true },
  });
  if (matches.length !== 1 || idOrPrefix.length < 4) return { revoked: 0, ambiguous: matches.length > 1 };
  await prisma.apiKey.update({ where: { id: matches[0]!.id }, data: { revokedAt: new Date() } });
  return { revoked: 1, ambiguous: false };
}

export interface Caller {
  keyId: string;
  /** The key's label: events name the key that caused them. */
  keyName: string;
  workspace: { id: string; defaultCurrency: string };
  /** What the key may do (src/auth/scopes.ts). */
  scopes: string[];
  /** After this instant the key is refused, even when remembered. */
  expiresAt: number | null;
}

// last_used_at is a hint, not an audit log: write it at most once a minute per key.
const LAST_USED_EVERY_MS = 60_000;

/** How long a process trusts what it read about a key: a revoked key is refused everywhere within this. */
export const KEY_RECHECK_MS = 2_000;
/** Keys remembered per process; past it the oldest are forgotten (and simply read again). */
const KEYS_REMEMBERED = 10_000;

interface Remembered {
  caller: Caller;
  checkedAt: number;
  /** The lookup under way once the entry is stale, shared by every request that finds it so. */
  refresh?: Promise<Caller | null>;
}

/**
 * The workspace behind a key, or null for a missing, malformed, unknown, revoked or expired key.
 * A valid key's answer is kept for KEY_RECHECK_MS, so the hot path costs no database
 * round trip; after that the next request reads it again (one lookup per key, however
 * many requests arrive at once). Unknown keys are never remembered: memory stays
 * bounded by the real keys, and each guess costs one indexed lookup.
 */
export function createAuthenticator(prisma: Db, recheckMs = KEY_RECHECK_MS) {
  const remembered = new Map<string, Remembered>();
  const lastUsedWritten = new Map<string, number>();

  async function lookUp(hash: string): Promise<Caller | null> {
    // One statement on both databases (Prisma reads a relation with a second one on SQLite):
    // a recheck is then one statement naming "ApiKey", which statement counts can tell apart.
    const [row] = await prisma.$queryRaw<
      { id: string; name: string; scopes: string; expiresAt: Date | string | null; revokedAt: unknown; workspaceId: string; defaultCurrency: string }[]
    >`
      SELECT k."id", k."name", k."scopes", k."expiresAt", k."revokedAt", w."id" AS "workspaceId", w."defaultCurrency"
      FROM "ApiKey" k JOIN "Workspace" w ON w."id" = k."workspaceId" WHERE k."hash" = ${hash}`;
    const expiresAt = row?.expiresAt ? new Date(row.expiresAt).getTime() : null;
    if (!row || row.revokedAt !== null || (expiresAt !== null && expiresAt <= Date.now())) {
      remembered.delete(hash);
      return null;
    }
    const now = Date.now();
    if ((lastUsedWritten.get(row.id) ?? 0) + LAST_USED_EVERY_MS < now) {
      lastUsedWritten.set(row.id, now);
      await prisma.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } });
    }
    const caller = { keyId: row.id, keyName: row.name, workspace: { id: row.workspaceId, defaultCurrency: row.defaultCurrency }, scopes: row.scopes.split(','), expiresAt };
    if (remembered.size >= KEYS_REMEMBERED) remembered.delete(remembered.keys().next().value!);
    remembered.set(hash, { caller, checkedAt: now });
    return caller;
  }

  return async function authenticate(key: string | null): Promise<Caller | null> {
    if (!key || !KEY_SHAPE.test(key)) return null;
    const hash = hashKey(key);
    const entry = remembered.get(hash);
    if (!entry) return lookUp(hash);
    if (entry.caller.expiresAt !== null && entry.caller.expiresAt <= Date.now()) return null;
    if (Date.now() - entry.checkedAt < recheckMs) return entry.caller;
    entry.refresh ??= lookUp(hash).finally(() => {
      entry.refresh = undefined;
    });
    return entry.refresh;
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
