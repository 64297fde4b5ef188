import type { PrismaClient } from '../db/prisma';
import { createExpiringCache } from '../lib/expiringCache';
import { ApiError } from './apiError';

/** The key a job was submitted with (null on jobs from before keys were recorded) and the job's account. */
export interface KeyHolder {
  accountId: string;
  apiKeyId: string | null;
}

export interface KeyStanding {
  /**
   * Resolves while the key and its account may still be used; rejects with UNAUTHORIZED when the key is revoked,
   * expired or gone, and ACCOUNT_SUSPENDED when the account is suspended, as the key itself would be answered.
   */
  check(holder: KeyHolder): Promise<void>;
}

interface Standing {
  keyGone: boolean;
  keyRevoked: boolean;
  keyExpiresAt: Date | null;
  accountSuspended: boolean;
}

const MAX_CACHED = 10_000;

async function readStanding(prisma: PrismaClient, { accountId, apiKeyId }: KeyHolder): Promise<Standing> {
  if (apiKeyId === null) {
    const account = await prisma.account.findUnique({ where: { id: accountId }, select: { suspendedAt: true } });
    return { keyGone: account === null, keyRevoked: false, keyExpiresAt: null, accountSuspended: account?.suspendedAt != null };
  }
  const key = await prisma.apiKey.findUnique({
    where: { id: apiKeyId },
    select: { accountId: true, revokedAt: true, expiresAt: true, account: { select: { suspendedAt: true } } },
  });
  if (!key || key.accountId !== accountId) return { keyGone: true, keyRevoked: false, keyExpiresAt: null, accountSuspended: false };
  return { keyGone: false, keyRevoked: key.revokedAt !== null, keyExpiresAt: key.expiresAt, accountSuspended: key.account.suspendedAt !== null };
}

/** In the order the key cache refuses a presented key: revoked, then expired, then suspended. */
function refuse(standing: Standing, now: number): void {
  if (standing.keyGone || standing.keyRevoked) {
    throw new ApiError('UNAUTHORIZED', 'The API key that submitted this job has been revoked, so the URLs signed for this job no longer open');
  }
  const expiresAt = standing.keyExpiresAt;
  if (expiresAt && expiresAt.getTime() <= now) {
    throw new ApiError('UNAUTHORIZED', `The API key that submitted this job expired at ${expiresAt.toISOString()}, so the URLs signed for this job no longer open`);
  }
  if (standing.accountSuspended) {
    throw new ApiError('ACCOUNT_SUSPENDED', 'This account is suspended; the URLs signed for its jobs are refused until an operator lifts the suspension');
  }
}

/**
 * Whether a key known only by its id, and its account, may still be used: what a job's signed events URL stands on,
 * as it carries no key of its own. Cached for `ttlMs` like the key cache of src/api/auth.ts (the same staleness: a
 * suspension or revocation takes effect within `ttlMs`), so the streams that re-check it every few seconds cost at
 * most one database round trip per key per `ttlMs`, however many there are. Every answer is cached, refusals too:
 * a revocation is for good, and a lifted suspension shows within `ttlMs` as it does for keys. 0 turns the cache off.
 */
export function createKeyStanding(prisma: PrismaClient, options: { ttlMs: number; clock?: () => number }): KeyStanding {
  const clock = options.clock ?? Date.now;
  // Pending lookups are cached too, so streams of one key that re-check at once share one query.
  const cache = createExpiringCache<Promise<Standing>>({ ttlMs: options.ttlMs, maxEntries: MAX_CACHED });
  return {
    async check(holder) {
      const now = clock();
      const id = `${holder.accountId}\n${holder.apiKeyId ?? ''}`;
      let standing = cache.get(id, now);
      if (!standing) {
        const read = readStanding(prisma, holder);
        standing = read;
        cache.set(id, read, now);
        read.catch(() => {
          if (cache.get(id, clock()) === read) cache.delete(id);
        });
      }
      refuse(await standing, clock());
    },
  };
}
