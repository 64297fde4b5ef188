/** PostgreSQL-backed job and account look-ups for webhook delivery. */
import type { Job, PrismaClient } from '@prisma/client';
import { toListEntry } from '../jobs/views';
import { WEBHOOK_FORMATS, type WebhookFormat } from '../shared/webhooks';
import type { WebhookDeliveryDeps, WebhookJob } from './deliverySteps';
import { readBatchFigures, toBatchView } from '../batches/read';

/** Ids of batches, whose `batch.completed` event is delivered like a job's. */
const BATCH_ID_PREFIX = 'bat_';

/** The batch as `GET /v1/batches/{batchId}` shows it, in the shape a delivery takes a job in. */
async function loadBatch(prisma: PrismaClient, batchId: string): Promise<WebhookJob | null> {
  const batch = await prisma.batch.findUnique({ where: { id: batchId } });
  if (!batch) return null;
  const record = toBatchView(batch, ...(await readBatchFigures(prisma, batch)));
  return { jobId: batch.id, accountId: batch.accountId, webhookUrl: batch.webhookUrl, format: null, finishedAt: batch.completedAt, record };
}

/** Turns a job row into the record `GET /v1/jobs/{jobId}` returns (output URLs signed). */
export type JobPresenter = (job: Job) => Promise<object> | object;

/**
 * `presentAs` presents the jobs whose webhooks a compatible API asked for in its own shape (a Replicate prediction);
 * the others are presented by `presentJob`.
 */
export function prismaWebhookSources(
  prisma: PrismaClient,
  presentJob: JobPresenter,
  presentAs: Partial<Record<WebhookFormat, JobPresenter>> = {},
): Pick<WebhookDeliveryDeps, 'loadJob' | 'loadAccountSecrets'> {
  return {
    async loadJob(jobId) {
      if (jobId.startsWith(BATCH_ID_PREFIX)) return loadBatch(prisma, jobId);
      const job = await prisma.job.findUnique({ where: { id: jobId } });
      if (!job) return null;
      const format = WEBHOOK_FORMATS.find((known) => known === job.webhookFormat && presentAs[known]) ?? null;
      const present = format ? presentAs[format]! : presentJob;
      return {
        jobId: job.id,
        accountId: job.accountId,
        webhookUrl: job.webhookUrl,
        format,
        finishedAt: job.completedAt,
        record: (await present(job)) as Record<string, unknown>,
      };
    },
    loadAccountSecrets(accountId) {
      return prisma.account.findUnique({
        where: { id: accountId },
        select: { webhookSecret: true, webhookSecretPrevious: true, webhookSecretRotatedAt: true },
      });
    },
  };
}

/**
 * The job as stored, in the shape of the job listing plus input, outputs and error, without signed
 * output URLs: for tests that run without object storage. Workers present jobs with `toDetail`.
 */
export function storedJobRecord(job: Job): Record<string, unknown> {
  return {
    ...toListEntry(job),
    costMicroCents: Number(job.costMicroCents),
    refundedMicroCents: Number(job.refundedMicroCents),
    input: job.input,
    outputs: job.outputs,
    error: job.errorCode ? { code: job.errorCode, message: job.errorMessage ?? '' } : null,
  };
}
