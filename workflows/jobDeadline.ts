/**
 * A job's deadline, as its workflow keeps it: a timer to the deadline (a workflow timer fires at it or after, never
 * before). A job still pending then is cancelled and refunded in full with DEADLINE_EXCEEDED; one its provider
 * claimed first, or that runs, is stopped at its provider by the job workflow (docs/eta.md), unless the deadline
 * bounds only its start (a batch item's completion window), when it runs to its end.
 */
import { condition } from '@temporalio/workflow';
import type { JobWorkflowStatus } from '../src/contracts/workflows/job';
import { DEADLINE_EXCEEDED, deadlineMessages } from '../src/shared/deadlines';
import type { JobError } from '../src/shared/jobs';

export interface DeadlineWatchedJob {
  /** The job's routes have ended: nothing is left to stop. */
  ended(): boolean;
  status(): JobWorkflowStatus;
  /** Cancels the pending job; fails when its provider claimed it first. */
  cancelPending(reason: JobError): Promise<unknown>;
  /** Stops the running job at its provider. */
  stopRunning(): void;
}

const NOT_STARTED: JobError = { code: DEADLINE_EXCEEDED, message: deadlineMessages.notStarted };

export async function watchDeadline(deadline: string, job: DeadlineWatchedJob, options: { startOnly: boolean }): Promise<void> {
  const waitMs = Math.max(1, Date.parse(deadline) - Date.now());
  const settled = () => job.ended() || job.status() === 'cancelled' || (options.startOnly && job.status() !== 'pending');
  if (await condition(settled, waitMs)) return;
  if (job.status() === 'pending') {
    try {
      await job.cancelPending(NOT_STARTED);
      return;
    } catch {
      // The provider claimed it first: it runs, and is stopped below unless only its start was bounded.
    }
  }
  if (options.startOnly) return;
  if (!job.ended() && job.status() !== 'cancelled') job.stopRunning();
}
