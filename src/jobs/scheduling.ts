/**
 * Where a job stands in a busy task queue: its priority (the plan's, or a lower one the submit asked for) and its
 * fair share (the account as Temporal's fairness key, weighted by the plan). Activities inherit it from the job's
 * workflow, so the provider task queues see the same.
 */
import type { Priority } from '@temporalio/common';
import { JOB_PRIORITIES, planPolicy, priorityAbove, temporalPriorityKey, type JobPriority } from '../accounts/plans';
import { DomainError } from '../shared/errors';

export interface JobScheduling {
  priority: JobPriority;
  /** Temporal's fairness key: the account. */
  fairnessKey: string;
  fairnessWeight: number;
  /** A batch item: it waits below every interactive job (BATCH_ITEM_PRIORITY_KEY). */
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
    throw new DomainError('VALIDATION_ERROR', `Invalid request: priority: ${message}`, [
      { path: 'priority', message, planPriority: plan.priority, allowed },
    ]);
  }
  return { priority: requested ?? plan.priority, fairnessKey: account.id, fairnessWeight: plan.fairnessWeight };
}

/**
 * The Temporal priority key of every batch item: the lowest level, below the interactive jobs of every account and
 * plan (`low` is 4), so a batch takes only the capacity they leave, and never delays another account's jobs by its
 * account's weight. Among batch items the accounts share by their weights.
 */
export const BATCH_ITEM_PRIORITY_KEY = 5;

/** Temporal's priority of the job's workflow; without `fairness`, jobs of one priority wait first-in, first-out. */
export function temporalPriority(scheduling: JobScheduling, fairness: boolean): Priority {
  const priorityKey = scheduling.batchItem ? BATCH_ITEM_PRIORITY_KEY : temporalPriorityKey(scheduling.priority);
  return fairness ? { priorityKey, fairnessKey: scheduling.fairnessKey, fairnessWeight: scheduling.fairnessWeight } : { priorityKey };
}
