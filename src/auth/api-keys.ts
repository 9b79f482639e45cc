import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/client.js';
import { newId } from '../db/ids.js';

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

/** Creates the workspace when it does not exist, then a key for it. The key is returned once and never stored. */
export async function createKey(prisma: Db, workspaceName: string, label = 'default'): Promise<CreatedKey> {
  const workspace = await prisma.workspace.upsert({
    where: { name: workspaceName },
    create: { id: newId(), name: workspaceName },
    update: {},
  });
  const key = generateKey();
  const row = await prisma.apiKey.create({
    data: { id: newId(), workspaceId: workspace.id, name: label, prefix: key.slice(0, PREFIX_LENGTH), hash: hashKey(key) },
  });
  return { id: row.id, workspaceId: workspace.id, key, prefix: row.prefix };
}

export async function listKeys(prisma: Db, workspaceName: string) {
  return prisma.apiKey.findMany({
    where: { workspace: { name: workspaceName } },
    orderBy: { id: 'asc' },
    select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true },
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
  workspace: { id: string; defaultCurrency: string };
}

// last_used_at is a hint, not an audit log: write it at most once a minute per key.
const LAST_USED_EVERY_MS = 60_000;
const lastUsedWritten = new Map<string, number>();

/** The workspace behind a key, or null for a missing, malformed, unknown or revoked key. */
export async function authenticate(prisma: Db, key: string | null): Promise<Caller | null> {
  if (!key || !KEY_SHAPE.test(key)) return null;
  const row = await prisma.apiKey.findUnique({
    where: { hash: hashKey(key) },
    select: { id: true, revokedAt: true, workspace: { select: { id: true, defaultCurrency: true } } },
  });
  if (!row || row.revokedAt) return null;
  const now = Date.now();
  if ((lastUsedWritten.get(row.id) ?? 0) + LAST_USED_EVERY_MS < now) {
    lastUsedWritten.set(row.id, now);
    await prisma.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } });
  }
  return { keyId: row.id, workspace: row.workspace };
}
