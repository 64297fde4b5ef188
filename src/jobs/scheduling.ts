/**
 * Where a job stands in a busy task queue: its priority (the plan's, or a lower one the submit asked for) and its
 * fair share (the account as Temporal's fairness key, weighted by the plan). Activities inherit it from the job's
 * workflow, so the provider task queues see the same.
 */
import type { Priority } from '@temporalio/common';
import { JOB_PRIORITIES, planPolicy, priorityAbove, temporalPriorityKey, type JobPriority } from '../accounts/plans';
import { ApiError } from '../shared/errors';

export interface JobScheduling {
  priority: JobPriority;
  /** Temporal's fairness key: the account. */
  fairnessKey: string;
  fairnessWeight: number;
  /** A batch item: it waits one priority key below the account's interactive jobs of its priority. */
  batchItem?: boolean;
}

/**
 * The scheduling of a job of `account`: the plan's priority unless the submit asked for a lower one. A higher one is
 * refused with VALIDATION_ERROR naming the field, the plan's priority and the values allowed.
 */
export function jobScheduling(account: { id: string; plan: string }, requested?: JobPriority): JobScheduling {
  const plan = planPolicy(account.plan);
  if (requested !== undefined && priorityAbove(requested, plan.priority)) {
    const allowed = JOB_PRIORITIES.filter((p) => !priorityAbove(p, plan.priority));
    const message = `priority ${requested} is above the ${plan.priority} priority of the account's plan; allowed: ${allowed.join(', ')}`;
    throw new ApiError('VALIDATION_ERROR', `Invalid request: priority: ${message}`, [
      { path: 'priority', message, planPriority: plan.priority, allowed },
    ]);
  }
  return { priority: requested ?? plan.priority, fairnessKey: account.id, fairnessWeight: plan.fairnessWeight };
}

/** How far below an interactive job of the same priority a batch item waits (Temporal's keys run 1 to 5). */
export const BATCH_PRIORITY_KEY_OFFSET = 1;

/** Temporal's priority of the job's workflow; without `fairness`, jobs of one priority wait first-in, first-out. */
export function temporalPriority(scheduling: JobScheduling, fairness: boolean): Priority {
  const priorityKey = temporalPriorityKey(scheduling.priority) + (scheduling.batchItem ? BATCH_PRIORITY_KEY_OFFSET : 0);
  return fairness ? { priorityKey, fairnessKey: scheduling.fairnessKey, fairnessWeight: scheduling.fairnessWeight } : { priorityKey };
}
