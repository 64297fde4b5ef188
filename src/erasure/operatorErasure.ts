/**
 * POST /v1/admin/accounts/{accountId}/erase and its progress: the request is recorded and audited once, then the
 * account's erasure workflow is started unless it already finished. A repeated request audits nothing, starts
 * nothing new (it joins the erasure under way) and answers the progress.
 */
import type { Client } from '@temporalio/client';
import type { AccountErasureView } from '../contracts/http/admin';
import { accountErasureWorkflowContract, accountErasureWorkflowId } from '../contracts/workflows/erasure';
import type { PrismaClient } from '../db/prisma';
import { recordAudit, type Actor } from '../audit/log';
import { DomainError } from '../shared/errors';
import { startWorkflow } from '../temporal/workflows';
import { readAccountErasure, recordErasureRequest } from './accountErasure';

export interface OperatorErasureDeps {
  prisma: PrismaClient;
  temporal: Pick<Client, 'workflow'>;
  taskQueue: string;
}

export async function requestAccountErasure(deps: OperatorErasureDeps, actor: Actor, accountId: string): Promise<AccountErasureView> {
  await deps.prisma.$transaction(async (tx) => {
    const account = await tx.account.findUnique({ where: { id: accountId }, select: { suspendedAt: true } });
    if (!account) throw new DomainError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
    if (!(await recordErasureRequest(tx, accountId, actor.keyId))) return;
    const activeKeys = await tx.apiKey.count({ where: { accountId, revokedAt: null } });
    await recordAudit(tx, actor, {
      action: 'account.erase',
      targetType: 'account',
      targetId: accountId,
      before: { suspended: account.suspendedAt !== null, activeKeys, erasure: null },
      after: { suspended: true, activeKeys: 0, erasure: 'requested' },
    });
  });
  const progress = (await readAccountErasure(deps.prisma, accountId))!;
  if (progress.status === 'running') {
    try {
      await startWorkflow(deps.temporal, accountErasureWorkflowContract, {
        workflowId: accountErasureWorkflowId(accountId),
        taskQueue: deps.taskQueue,
        args: [{ accountId }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
    } catch {
      // Recorded but not started: the same request, repeated, starts it.
      throw new DomainError('SERVICE_UNAVAILABLE', "The account's erasure could not be started right now; retry the request", undefined, { retryAfterSeconds: 1 });
    }
  }
  return progress;
}

export async function accountErasureProgress(prisma: PrismaClient, accountId: string): Promise<AccountErasureView> {
  const progress = await readAccountErasure(prisma, accountId);
  if (progress) return progress;
  if (!(await prisma.account.findUnique({ where: { id: accountId }, select: { id: true } }))) throw new DomainError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
  throw new DomainError('ERASURE_NOT_FOUND', `No erasure was requested for account ${accountId}`);
}
