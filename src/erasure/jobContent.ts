/**
 * The PostgreSQL and storage half of erasing a job's content. Each step is repeatable, and the job row's input is
 * cleared last (with `content_erased_at`), so a step interrupted before it finds the input files again.
 */
import type { PrismaClient } from '@prisma/client';
import type { Storage } from '../storage/storage';
import { matchFileUrl } from '../uploads/fileUrl';
import { inputStrings } from '../uploads/mediaFields';
import { TERMINAL_JOB_STATUSES, type JobStatus } from '../shared/jobs';
import { deleteJobOutputs, type DeleteOutputsDeps } from '../outputs/storing/deleteOutputs';
import type { ErasureReason } from '../contracts/workflows/erasure';
import { deleteBatchUpload } from '../batches/inputRelease';

export interface JobContentDeps {
  prisma: PrismaClient;
  storage: Pick<Storage, 'outputsBucket' | 'uploadsBucket' | 'remove' | 'removeMany' | 'removePrefix'>;
  /** PUBLIC_BASE_URL: the origin of our file URLs (`/v1/files/<fileId>`) in job inputs. */
  publicBaseUrl: string;
}

/** What an erasure needs to know of a job before it starts: whether it may, and whether it already happened. */
export interface ErasableJob {
  accountId: string;
  status: JobStatus;
  terminal: boolean;
  contentErasedAt: Date | null;
}

export async function readErasableJob(prisma: PrismaClient, jobId: string): Promise<ErasableJob | null> {
  const job = await prisma.job.findUnique({ where: { id: jobId }, select: { accountId: true, status: true, contentErasedAt: true } });
  if (!job) return null;
  return { ...job, terminal: TERMINAL_JOB_STATUSES.includes(job.status) };
}

/**
 * Deletes the job's outputs through deleteJobOutputs (which records when and why), then anything else under the
 * job's prefix of the outputs bucket (files of an attempt that did not win). Returns the bytes deleted now.
 */
export async function eraseJobOutputs(deps: JobContentDeps, jobId: string, reason: ErasureReason): Promise<number> {
  const outputDeps: DeleteOutputsDeps = { prisma: deps.prisma, storage: deps.storage };
  const deleted = await deleteJobOutputs(outputDeps, [jobId], reason);
  await deps.storage.removePrefix(deps.storage.outputsBucket, `${jobId}/`);
  return deleted.reduce((sum, job) => sum + Number(job.bytes), 0);
}

/** Ids of the account's uploads that the input names by their file URL. */
export function inputFileIds(publicBaseUrl: string, input: unknown): string[] {
  const ids = new Set<string>();
  for (const { value } of inputStrings(input, {})) {
    const match = matchFileUrl(publicBaseUrl, value);
    if (match.kind === 'ours') ids.add(match.fileId);
  }
  return [...ids];
}

/**
 * Deletes the uploads of the job's account that its input refers to: the object in the uploads bucket, then the
 * upload's row (its filename is the client's too), and the JSONL file of the job's batch. Returns how many uploads
 * the input named and it deleted.
 */
export async function eraseJobInputFiles(deps: JobContentDeps, jobId: string): Promise<number> {
  const job = await deps.prisma.job.findUnique({ where: { id: jobId }, select: { accountId: true, input: true, batchId: true } });
  if (!job) return 0;
  // The JSONL file of the job's batch holds the job's input among every other line's: it goes at once.
  if (job.batchId) await deleteBatchUpload(deps, job.batchId);
  const fileIds = inputFileIds(deps.publicBaseUrl, job.input);
  if (fileIds.length === 0) return 0;
  const uploads = await deps.prisma.upload.findMany({ where: { id: { in: fileIds }, accountId: job.accountId }, select: { id: true, objectKey: true } });
  await deps.storage.removeMany(deps.storage.uploadsBucket, uploads.map((upload) => upload.objectKey));
  const { count } = await deps.prisma.upload.deleteMany({ where: { id: { in: uploads.map((upload) => upload.id) } } });
  return count;
}

/**
 * In one transaction, erases what PostgreSQL holds of the job's content and marks the job erased: the input becomes
 * `{}`, the error's message, the upstream's last stage line, the batch item's customId (on the job and its batch line)
 * and the attempts' error messages are cleared, the job's
 * events, webhook log and idempotency records go, and its Cog predictions lose their snapshots. The id, model,
 * version, money, timestamps, error code and ledger rows stay. Returns when the content was erased (the first time).
 */
export async function eraseJobRecords(prisma: PrismaClient, jobId: string): Promise<Date> {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`
      UPDATE jobs SET input = '{}'::jsonb, error_message = NULL, upstream_stage = NULL, custom_id = NULL,
                      content_erased_at = COALESCE(content_erased_at, now())
      WHERE id = ${jobId}
        AND (content_erased_at IS NULL OR input <> '{}'::jsonb OR error_message IS NOT NULL OR upstream_stage IS NOT NULL OR custom_id IS NOT NULL)`;
    // After the update: clearing the stage writes one more event through the jobs trigger, deleted here too.
    await tx.$executeRaw`DELETE FROM job_events WHERE job_id = ${jobId}`;
    await tx.$executeRaw`DELETE FROM webhook_attempts WHERE job_id = ${jobId}`;
    await tx.$executeRaw`DELETE FROM webhook_events WHERE job_id = ${jobId}`;
    await tx.$executeRaw`UPDATE job_attempts SET error_message = NULL WHERE job_id = ${jobId} AND error_message IS NOT NULL`;
    await tx.$executeRaw`DELETE FROM idempotency_records WHERE job_id = ${jobId}`;
    // The batch line the job was admitted from holds the same input and customId.
    await tx.$executeRaw`
      UPDATE batch_items SET input = '{}'::jsonb, error_message = NULL, custom_id = NULL
      WHERE job_id = ${jobId} AND (input <> '{}'::jsonb OR error_message IS NOT NULL OR custom_id IS NOT NULL)`;
    await tx.$executeRaw`
      UPDATE cog_predictions p SET snapshot = NULL
      WHERE p.snapshot IS NOT NULL AND (p.provider_id, p.id) IN (
        SELECT provider_id, upstream_id FROM jobs WHERE id = ${jobId} AND upstream_id IS NOT NULL
        UNION ALL
        SELECT provider_id, upstream_id FROM job_attempts WHERE job_id = ${jobId} AND upstream_id IS NOT NULL)`;
    const job = await tx.job.findUniqueOrThrow({ where: { id: jobId }, select: { contentErasedAt: true } });
    return job.contentErasedAt!;
  });
}
