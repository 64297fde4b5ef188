/** The operator API's feature: accounts, keys, credits, usage and the audit log, built once per API process. */
import type { PrismaClient } from '../db/prisma';
import type { LedgerQuery } from '../contracts/http/account';
import type { AdminJob, AuditQuery, UsageQuery } from '../contracts/http/admin';
import { rotateWebhookSecret } from '../accounts/service';
import { setVersionStatus, VersionStatusError } from '../catalog/versionStatus';
import { jobMargins, showJob } from '../jobs/admin';
import { ApiError } from '../shared/errors';
import { recordAudit, type Actor } from './audit';
import { accountNotFound } from './accounts';
import { listLedger } from '../accounts/ledger';
import type { Clock } from '../lib/clock';
import { createAdminAccounts } from './accounts';
import { listAudit } from './audit';
import { createAdminCredits } from './credits';
import { createAdminKeys } from './keys';
import { usageReport } from './usage';

export interface AdminServiceDeps {
  prisma: PrismaClient;
  cursorSecret: string;
  clock: Clock;
  /** Where a job's workflow is shown: `${uiUrl}/namespaces/${namespace}/workflows/<workflow id>`. */
  workflowUrl: (jobId: string) => string;
}

export function createAdminService(deps: AdminServiceDeps) {
  const { prisma, cursorSecret } = deps;
  const now = () => new Date(deps.clock.now());
  const accounts = createAdminAccounts({ prisma, cursorSecret, now });
  return {
    accounts,
    keys: createAdminKeys({ prisma, now }),
    credits: createAdminCredits({ prisma }),
    async ledger(accountId: string, query: LedgerQuery) {
      await accounts.get(accountId);
      return listLedger(prisma, cursorSecret, accountId, query);
    },
    usage: (query: UsageQuery) => usageReport(prisma, query, now()),
    audit: (query: AuditQuery) => listAudit(prisma, cursorSecret, query),

    /** A new webhook signing secret; the previous one keeps signing for the rotation window. Audited without secrets. */
    async rotateWebhookSecret(actor: Actor, accountId: string) {
      const rotated = await rotateWebhookSecret(prisma, accountId);
      if (!rotated) throw accountNotFound(accountId);
      await prisma.$transaction((tx) =>
        recordAudit(tx, actor, { action: 'account.rotate-webhook-secret', targetType: 'account', targetId: accountId, before: null, after: { rotatedAt: rotated.rotatedAt } }),
      );
      return rotated;
    },

    async job(jobId: string): Promise<AdminJob> {
      const job = await showJob(prisma, jobId);
      if (!job) throw new ApiError('JOB_NOT_FOUND', `No job ${jobId}`);
      return { ...job, workflowUrl: deps.workflowUrl(jobId) };
    },

    async margins(since: string | undefined) {
      const from = since === undefined ? null : new Date(since);
      return { since: from?.toISOString() ?? null, providers: await jobMargins(prisma, from) };
    },

    async setVersionStatus(model: string, versionId: string, status: string) {
      try {
        return await setVersionStatus(prisma, model, versionId, status);
      } catch (err) {
        if (err instanceof VersionStatusError) throw new ApiError('VALIDATION_ERROR', err.message, [{ path: 'status', message: err.message }]);
        throw err;
      }
    },
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
