/**
 * Claiming a job for one attempt: pending → processing in PostgreSQL (what a cancel races against), the workflow told
 * the job started, and the attempt's row written. A retried activity finds the job already claimed by it (`resumed`).
 */
import { Context } from '@temporalio/activity';
import type { GenerationStart } from '../../src/shared/upstreams';
import type { GenerationActivityDeps } from './deps';

export interface ClaimedJob {
  /** When the job started processing. */
  startedAt: Date;
  /**
   * The rest of the claim, under way once the job is processing: the workflow told (best effort) and the attempt's row
   * written. A generation in the worker renders meanwhile and awaits it before storing anything; a paid request to an
   * upstream is sent only after it. It always has a handler, so a render that fails first leaves no rejection unheard.
   */
  recorded: Promise<void>;
}

/** The job claimed for this attempt; null when a cancel won the race and nothing may be sent. */
export async function claimJob(deps: Pick<GenerationActivityDeps, 'jobStore' | 'generations' | 'notifyStarted'>, input: GenerationStart): Promise<ClaimedJob | null> {
  const ctx = Context.current();
  const claim = await deps.jobStore.claim(input.jobId, input.expectedProcessingSeconds);
  if (!claim.claimed) {
    ctx.log.info('job not claimed', { jobId: input.jobId, status: claim.status });
    return null;
  }
  const told = claim.resumed
    ? Promise.resolve()
    : deps.notifyStarted(input.jobId, claim.startedAt).catch((err: unknown) => {
        ctx.log.warn('could not signal job start', { jobId: input.jobId, error: String(err) });
      });
  const { id, number, role = number === 1 ? 'first' : 'failover' } = input.attempt;
  const attemptRow = deps.generations.beginAttempt({ jobId: input.jobId, attemptId: id }, number, input.providerId, role, ctx.info.taskQueue);
  const recorded = Promise.all([told, attemptRow]).then(() => undefined);
  recorded.catch(() => undefined);
  return { startedAt: claim.startedAt, recorded };
}
