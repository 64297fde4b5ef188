/**
 * A batch's input is kept only while a line may still be admitted from it. Once no line is queued (every line admitted
 * or refused: failed, skipped, cancelled or expired), the uploaded JSONL file, which holds every prompt of the batch,
 * is deleted, and the lines never admitted lose their input: no job was made from them, so nothing will read it again
 * (their error code and message stay, for the results). An admitted line keeps its input until its job is erased, as the job does. Erasures call the
 * same deletions at once (src/erasure/).
 */
import type { PrismaClient } from '@prisma/client';
import type { Storage } from '../storage/storage';

export interface BatchInputDeps {
  prisma: PrismaClient;
  storage: Pick<Storage, 'uploadsBucket' | 'remove'>;
}

/** Deletes the batch's uploaded JSONL file (the object, then its row); false for an inline batch or a file gone already. */
export async function deleteBatchUpload(deps: BatchInputDeps, batchId: string): Promise<boolean> {
  const batch = await deps.prisma.batch.findUnique({ where: { id: batchId }, select: { accountId: true, uploadId: true } });
  if (!batch?.uploadId) return false;
  const upload = await deps.prisma.upload.findFirst({ where: { id: batch.uploadId, accountId: batch.accountId }, select: { id: true, objectKey: true } });
  if (!upload) return false;
  await deps.storage.remove(deps.storage.uploadsBucket, upload.objectKey);
  await deps.prisma.upload.deleteMany({ where: { id: upload.id } });
  return true;
}

/** Clears the input of the batch's lines that were refused without a job. */
export async function clearUnadmittedLines(prisma: Pick<PrismaClient, '$executeRaw'>, batchId: string): Promise<number> {
  return prisma.$executeRaw`
    UPDATE batch_items SET input = '{}'::jsonb
     WHERE batch_id = ${batchId} AND job_id IS NULL AND status <> 'queued' AND input <> '{}'::jsonb`;
}

/**
 * When no line of the batch is queued any more: deletes its upload and clears its lines never admitted. Returns
 * whether it did (false while a line may still be admitted). Repeatable.
 */
export async function releaseBatchInput(deps: BatchInputDeps, batchId: string): Promise<boolean> {
  const queued = await deps.prisma.batchItem.count({ where: { batchId, status: 'queued' } });
  if (queued > 0) return false;
  await clearUnadmittedLines(deps.prisma, batchId);
  await deleteBatchUpload(deps, batchId);
  return true;
}
