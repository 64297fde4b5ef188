/**
 * One batch item becomes a job exactly as a single submit does: the same planning (`planJob`), the same job workflow
 * started with Update-with-Start, whose admission activity charges the account under its lock (balance, spend limits,
 * concurrent jobs). What differs: the job id is derived from (batch id, line), so a retried admission finds the job it
 * made instead of making another; the job waits below the account's interactive jobs; the rate limit of single
 * submits does not count it (the batch's own pace bounds it).
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { JobWorkflowInput } from '../contracts/workflows/job';
import { ApiError } from '../shared/errors';
import { CLIENT_REFUSALS, isJobRuleCode } from '../shared/jobRules';
import type { JobPriority } from '../shared/jobPriority';
import { planJob, type PlannedJob, type SubmitDeps } from '../jobs/submit';
import type { Caller } from '../jobs/quote';
import type { AdmitJobWorkflow } from '../jobs/submitStore';

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
      { requestId: null, batch: { batchId: item.batchId, customId: item.customId } },
    );
    return { item, planned };
  } catch (err) {
    if (err instanceof ApiError) return { item, refused: { code: err.code, message: err.message } };
    throw err;
  }
}

export type ItemAdmission =
  | { outcome: 'admitted'; jobId: string; costMicroCents: number }
  /** The account is at its concurrent jobs: the item waits for the next round. */
  | { outcome: 'wait' }
  | { outcome: 'refused'; code: string; message: string };

/** Admits a planned item, or finds it admitted by an earlier try. Unknown outcomes throw: the round is retried. */
export async function admitPlannedItem(
  deps: { admitWorkflow: AdmitJobWorkflow; findAdmission(accountId: string, jobId: string): Promise<{ costMicroCents: number } | null>; now(): number; admissionTimeoutMs: number },
  planned: PlannedJob,
): Promise<ItemAdmission> {
  const { jobId, accountId } = planned.workflowInput;
  const earlier = await deps.findAdmission(accountId, jobId);
  if (earlier) return { outcome: 'admitted', jobId, costMicroCents: earlier.costMicroCents };
  const input: JobWorkflowInput = { ...planned.workflowInput, admitBefore: new Date(deps.now() + deps.admissionTimeoutMs).toISOString() };
  try {
    const admission = await deps.admitWorkflow(input, deps.now() + deps.admissionTimeoutMs + 5000, { ...planned.scheduling, batchItem: true }, { attachToRunning: true });
    return { outcome: 'admitted', jobId, costMicroCents: admission.costMicroCents };
  } catch (err) {
    const refusal = err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure ? err.cause : undefined;
    if (refusal?.type === 'CONCURRENT_JOBS_EXCEEDED') return { outcome: 'wait' };
    if (isJobRuleCode(refusal?.type) && CLIENT_REFUSALS.includes(refusal.type)) return { outcome: 'refused', code: refusal.type, message: refusal.message };
    throw err;
  }
}
