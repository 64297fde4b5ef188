/** The operator API's feature: accounts, keys, credits, usage and the audit log, built once per API process. */
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '../db/prisma';
import type { LedgerQuery } from '../contracts/http/account';
import type { AdminJob, AuditQuery, ImportCogRequest, UsageQuery } from '../contracts/http/admin';
import { CogImportError, importCogModel, serverOrigin } from '../catalog/cogImport';
import type { AllowedNetworks } from '../net/allowedNetworks';
import { createCogTransport } from '../providers/cog/transport';
import { checkOutboundUrl } from '../net/addressGuard';
import { rotateWebhookSecret } from '../accounts/service';
import { changeVersionStatus, VersionStatusError } from '../catalog/versionStatus';
import { joinTransaction } from '../db/joinTransaction';
import { jobMargins, showJob } from '../jobs/admin';
import { DomainError } from '../shared/errors';
import { listAudit, recordAudit, type Actor } from '../audit/log';
import { auditedCogModel } from './catalogAudit';
import { accountNotFound } from './accounts';
import { listLedger } from '../accounts/ledger';
import type { Clock } from '../lib/clock';
import { createAdminAccounts } from './accounts';
import { createAdminCredits } from './credits';
import { createAdminKeys } from './keys';
import { usageReport } from './usage';
import { accountErasureProgress, requestAccountErasure } from '../erasure/operatorErasure';

export interface AdminServiceDeps {
  prisma: PrismaClient;
  cursorSecret: string;
  clock: Clock;
  /** Where a job's workflow is shown: `${uiUrl}/namespaces/${namespace}/workflows/<workflow id>`. */
  workflowUrl: (jobId: string) => string;
  /** The networks Cog servers may be on (COG_ALLOWED_NETWORKS): import-cog reaches and registers no other. */
  cogAllowedNetworks: AllowedNetworks;
  /** outputs.retentionMinSeconds: the shortest output retention an operator may give an account. */
  retentionMinSeconds: number;
  /** Starts account erasures, on the jobs task queue. */
  temporal: Pick<Client, 'workflow'>;
  jobsTaskQueue: string;
}

export function createAdminService(deps: AdminServiceDeps) {
  const { prisma, cursorSecret } = deps;
  const now = () => new Date(deps.clock.now());
  const accounts = createAdminAccounts({ prisma, cursorSecret, now, retentionMinSeconds: deps.retentionMinSeconds });
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
    /** Erases every job of the account, revokes its keys and suspends it, as durable work (audited once). */
    eraseAccount: (actor: Actor, accountId: string) => requestAccountErasure({ prisma, temporal: deps.temporal, taskQueue: deps.jobsTaskQueue }, actor, accountId),
    accountErasure: (accountId: string) => accountErasureProgress(prisma, accountId),

    /**
     * A new webhook signing secret; the previous one keeps signing for the rotation window. Audited in the same
     * transaction, without secrets: when the secret was rotated before and now.
     */
    async rotateWebhookSecret(actor: Actor, accountId: string) {
      return prisma.$transaction(async (tx) => {
        const rotated = await rotateWebhookSecret(tx, accountId);
        if (!rotated) throw accountNotFound(accountId);
        await recordAudit(tx, actor, {
          action: 'account.rotate-webhook-secret',
          targetType: 'account',
          targetId: accountId,
          before: { rotatedAt: rotated.previousRotatedAt },
          after: { rotatedAt: rotated.rotatedAt },
        });
        return { accountId, webhookSecret: rotated.webhookSecret, rotatedAt: rotated.rotatedAt };
      });
    },

    async job(jobId: string): Promise<AdminJob> {
      const job = await showJob(prisma, jobId);
      if (!job) throw new DomainError('JOB_NOT_FOUND', `No job ${jobId}`);
      return { ...job, workflowUrl: deps.workflowUrl(jobId) };
    },

    async margins(since: string | undefined) {
      const from = since === undefined ? null : new Date(since);
      return { since: from?.toISOString() ?? null, providers: await jobMargins(prisma, from) };
    },

    /**
     * Registers the model a Cog server serves, from its OpenAPI document (or the schema sent), and adds the server to
     * its pool. The import and its audit entry (the model, version and server as they were, and as they are) commit
     * together or not at all.
     */
    async importCog(actor: Actor, body: ImportCogRequest) {
      const { schema, ...options } = body;
      const server = await allowedCogServer(body.url, deps.cogAllowedNetworks);
      const document = schema ?? (await readCogSchema(server, deps.cogAllowedNetworks));
      try {
        return await prisma.$transaction(
          async (tx) => {
            const serverUrl = serverOrigin(options.url);
            const before = await auditedCogModel(tx, options.slug, options.versionId, serverUrl);
            const imported = await importCogModel(joinTransaction(tx), options, document);
            const after = await auditedCogModel(tx, imported.slug, imported.versionId, imported.serverUrl);
            await recordAudit(tx, actor, { action: 'model.import-cog', targetType: 'model', targetId: imported.slug, before, after });
            return imported;
          },
          { timeout: IMPORT_TRANSACTION_TIMEOUT_MS },
        );
      } catch (err) {
        if (err instanceof CogImportError) throw new DomainError('VALIDATION_ERROR', err.message, [{ path: 'schema', message: err.message }]);
        throw err;
      }
    },

    /** Changes a version's status at once; audited in the same transaction with the status before and after. */
    async setVersionStatus(actor: Actor, model: string, versionId: string, status: string) {
      try {
        return await prisma.$transaction(async (tx) => {
          const change = await changeVersionStatus(tx, model, versionId, status);
          await recordAudit(tx, actor, {
            action: 'model.version-status',
            targetType: 'model',
            targetId: change.slug,
            before: { versionId: change.versionId, status: change.previousStatus },
            after: { versionId: change.versionId, status: change.status },
          });
          return change;
        });
      } catch (err) {
        if (err instanceof VersionStatusError) throw new DomainError('VALIDATION_ERROR', err.message, [{ path: 'status', message: err.message }]);
        throw err;
      }
    },
  };
}

export type AdminService = ReturnType<typeof createAdminService>;

/** The whole schema answer, or the import gives up: a server that never finishes holds nothing for long. */
const COG_SCHEMA_TIMEOUT_MS = 10_000;
/** An import writes the catalog's categories and groups with the model, as a seed does (src/catalog/seed.ts). */
const IMPORT_TRANSACTION_TIMEOUT_MS = 60_000;

/** The server's base URL, when it is one and its address is on an allowed network; else a 400 saying why. */
async function allowedCogServer(url: string, allowedNetworks: AllowedNetworks): Promise<string> {
  let server: string;
  try {
    server = serverOrigin(url);
  } catch (err) {
    if (!(err instanceof CogImportError)) throw err;
    throw new DomainError('VALIDATION_ERROR', err.message, [{ path: 'url', message: 'not a server base URL' }]);
  }
  const check = await checkOutboundUrl(server, { allowPrivate: false, allowedNetworks, schemes: ['http:', 'https:'], what: 'Cog server' });
  if (!check.ok) throw new DomainError('VALIDATION_ERROR', `${url} cannot be used: ${check.reason}`, [{ path: 'url', message: 'not on an allowed network' }]);
  return server;
}

/** The server's OpenAPI document. A failure says what went wrong, never what the server sent. */
async function readCogSchema(server: string, allowedNetworks: AllowedNetworks): Promise<Record<string, unknown>> {
  let document: Record<string, unknown> | undefined;
  try {
    document = await createCogTransport({ timeoutMs: COG_SCHEMA_TIMEOUT_MS, allowedNetworks }).openapi(server, AbortSignal.timeout(COG_SCHEMA_TIMEOUT_MS + 1_000));
  } catch (err) {
    throw new DomainError('VALIDATION_ERROR', `Could not read ${server}/openapi.json: ${err instanceof Error ? err.message : String(err)}`, [{ path: 'url', message: 'unreadable' }]);
  }
  if (!document) {
    throw new DomainError('VALIDATION_ERROR', `${server} serves no OpenAPI document (it has no .cog/openapi_schema.json): send its schema in "schema"`, [
      { path: 'schema', message: 'required for this server' },
    ]);
  }
  return document;
}
