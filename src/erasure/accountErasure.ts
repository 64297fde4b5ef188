/**
 * An operator's erasure of a whole account: requested once (audited), carried out by the account erasure workflow
 * (every ended job erased as a client's DELETE would, with reason `operator`, and every upload deleted), its keys
 * revoked and the account suspended for good. Its progress is counted from the jobs themselves, so it is true
 * whatever state the workflow is in.
 */
import type { Prisma, PrismaClient } from '@prisma/client';
import type { AccountErasureView } from '../contracts/http/admin';
import { TERMINAL_JOB_STATUSES } from '../shared/jobs';
import type { Storage } from '../storage/storage';
import { uploadObjectKey } from '../uploads/ids';
import { eraseAccountBatches } from './batchContent';

type Db = PrismaClient | Prisma.TransactionClient;

/** Records the erasure's request; false when the account's erasure was already requested (nothing changes then). */
export async function recordErasureRequest(tx: Prisma.TransactionClient, accountId: string, requestedByKeyId: string): Promise<boolean> {
  const inserted = await tx.$executeRaw`
    INSERT INTO account_erasures (account_id, requested_by_key_id) VALUES (${accountId}, ${requestedByKeyId})
    ON CONFLICT (account_id) DO NOTHING`;
  return inserted > 0;
}

/**
 * Suspends the account (keeping an earlier suspension's time), revokes every key still usable, removes its destination
 * and clears what its batches hold of their callers' content: every line's input and customId, those never admitted
 * included (a suspended account's batches admit nothing more), and the refused lines' customIds and messages.
 */
export async function closeAccountForErasure(prisma: PrismaClient, accountId: string): Promise<void> {
  await prisma.$transaction(async (tx) => {
    await tx.$executeRaw`UPDATE accounts SET suspended_at = COALESCE(suspended_at, now()), updated_at = now() WHERE id = ${accountId} AND suspended_at IS NULL`;
    await tx.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE account_id = ${accountId} AND revoked_at IS NULL`;
    // The account's own bucket settings (its credentials among them): nothing is delivered for a closed account.
    await tx.$executeRaw`DELETE FROM account_destinations WHERE account_id = ${accountId}`;
    await eraseAccountBatches(tx, accountId);
  });
}

export interface JobsAwaitingErasure {
  /** Ended jobs whose content is not erased yet, oldest first. */
  jobIds: string[];
  /** Jobs still pending or processing: erased once they end. */
  unfinished: number;
}

export async function jobsAwaitingErasure(prisma: PrismaClient, accountId: string, limit: number): Promise<JobsAwaitingErasure> {
  const ended = await prisma.job.findMany({
    where: { accountId, contentErasedAt: null, status: { in: [...TERMINAL_JOB_STATUSES] } },
    select: { id: true },
    orderBy: [{ createdAt: 'asc' }, { seq: 'asc' }],
    take: limit,
  });
  const unfinished = await prisma.job.count({ where: { accountId, status: { notIn: [...TERMINAL_JOB_STATUSES] } } });
  return { jobIds: ended.map((job) => job.id), unfinished };
}

/**
 * Deletes every upload the account still has (its objects under `<accountId>/` in the uploads bucket, then its rows),
 * those no job named included. Returns how many objects it deleted.
 */
export async function eraseAccountUploads(deps: { prisma: PrismaClient; storage: Pick<Storage, 'uploadsBucket' | 'removePrefix'> }, accountId: string): Promise<number> {
  const removed = await deps.storage.removePrefix(deps.storage.uploadsBucket, uploadObjectKey(accountId, ''));
  await deps.prisma.upload.deleteMany({ where: { accountId } });
  return removed;
}

export async function finishAccountErasure(prisma: PrismaClient, accountId: string): Promise<void> {
  await prisma.$executeRaw`UPDATE account_erasures SET completed_at = now() WHERE account_id = ${accountId} AND completed_at IS NULL`;
}

/** The erasure as the operator sees it, or null when none was requested for the account. */
export async function readAccountErasure(db: Db, accountId: string): Promise<AccountErasureView | null> {
  const erasure = await db.accountErasure.findUnique({ where: { accountId } });
  if (!erasure) return null;
  const [total, erased, activeKeys] = await Promise.all([
    db.job.count({ where: { accountId } }),
    db.job.count({ where: { accountId, contentErasedAt: { not: null } } }),
    db.apiKey.count({ where: { accountId, revokedAt: null } }),
  ]);
  return {
    accountId,
    status: erasure.completedAt ? 'completed' : 'running',
    requestedAt: erasure.requestedAt.toISOString(),
    completedAt: erasure.completedAt?.toISOString() ?? null,
    jobs: { total, erased, remaining: total - erased },
    activeKeys,
  };
}
