/**
 * One batch item becomes a job as a single submit does: the same planning (`planJob`), the same admission rules
 * (balance, spend limits, concurrent jobs: `JobStore.admitInOrder` applies them as `admit` does) and the same job
 * workflow. What differs: the job id is derived from (batch id, line), so a retried admission finds the job it made
 * instead of making another; the job waits below the account's interactive jobs; the rate limit of single submits
 * does not count it (the batch's own pace bounds it); the batch's completion window is its job's deadline, which
 * bounds only its start.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '../shared/errors';
import type { JobPriority } from '../shared/jobPriority';
import { planJob, type PlannedJob, type SubmitDeps } from '../jobs/submit';
import type { Caller } from '../jobs/quote';
import { workflowInputRefusal } from './validation';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The job id of a batch's line: the same on every try, and as long and unguessable as a random job id. */
export function batchItemJobId(batchId: string, line: number): string {
  const digest = createHash('sha256').update(`${batchId}:${line}`).digest();
  let id = '';
  for (let i = 0; id.length < 22; i++) id += BASE62[digest[i % digest.length]! % 62];
  return `job_${id}`;
}

export interface QueuedItem {
  batchId: string;
  line: number;
  customId: string;
  modelSlug: string;
  version: string | null;
  input: Record<string, unknown>;
  webhookUrl: string | null;
  priority: JobPriority | null;
  /** The batch's completion window ends then: the item's job must have started by it (null: no window). */
  expiresAt: Date | null;
}

export type PlannedItem = { item: QueuedItem; planned: PlannedJob } | { item: QueuedItem; refused: { code: string; message: string } };

/** The item planned as a submit of it would be now; a refusal (model gone, input no longer valid) is the item's failure. */
export async function planItem(deps: Pick<SubmitDeps, 'config' | 'store'>, caller: Caller, item: QueuedItem): Promise<PlannedItem> {
  try {
    const planned = await planJob(
      deps,
      caller,
      {
        model: item.modelSlug,
        ...(item.version ? { version: item.version } : {}),
        input: item.input,
        ...(item.webhookUrl ? { webhookUrl: item.webhookUrl } : {}),
        ...(item.priority ? { priority: item.priority } : {}),
      },
      batchItemJobId(item.batchId, item.line),
      {
        requestId: null,
        batch: { batchId: item.batchId, customId: item.customId },
        // Its job not started when the window ends is cancelled by its own workflow, and the item expires.
        ...(item.expiresAt ? { deadline: item.expiresAt, deadlineBoundsStartOnly: true } : {}),
      },
    );
    // Refused before its charge: a job whose workflow cannot start would be charged and refunded on every round.
    const oversize = workflowInputRefusal(planned.workflowInput);
    if (oversize) return { item, refused: oversize };
    return { item, planned };
  } catch (err) {
    if (err instanceof DomainError) return { item, refused: { code: err.code, message: err.message } };
    throw err;
  }
}
