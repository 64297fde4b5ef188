/**
 * Erasure of a job's content (`job-erasure:<jobId>`), started by `DELETE /v1/jobs/{jobId}`, and of a whole account
 * (`account-erasure:<accountId>`), started by the operator. Their histories hold ids only, never a job's content.
 */
import { workflowContract } from './define';

/** Why a job's content is erased: its owner asked (`client`) or an operator erased the account (`operator`). */
export type ErasureReason = 'client' | 'operator';

export function jobErasureWorkflowId(jobId: string): string {
  return `job-erasure:${jobId}`;
}

export function accountErasureWorkflowId(accountId: string): string {
  return `account-erasure:${accountId}`;
}

export interface JobErasureInput {
  jobId: string;
  reason: ErasureReason;
}

export interface JobErasureResult {
  jobId: string;
  /** ISO 8601: when the job's content was erased (the first erasure's time, whichever erased it). */
  contentErasedAt: string;
}

export interface AccountErasureInput {
  accountId: string;
  /** Jobs erased by earlier runs of this erasure (set when it continues as new). */
  erasedBefore?: number;
}

export interface AccountErasureResult {
  accountId: string;
  jobsErased: number;
}

export const jobErasureWorkflowContract = workflowContract<[JobErasureInput], JobErasureResult>('jobErasureWorkflow');
export const accountErasureWorkflowContract = workflowContract<[AccountErasureInput], AccountErasureResult>('accountErasureWorkflow');
