/**
 * Claiming a job for one attempt: pending → processing in PostgreSQL (what a cancel races against), the workflow told
 * the job started, and the attempt's row written. A retried activity finds the job already claimed by it (`resumed`).
 */
import { Context } from '@temporalio/activity';
import type { GenerationStart } from '../../src/shared/upstreams';
import type { GenerationActivityDeps } from './deps';

/** When the job started processing; null when a cancel won the race and nothing may be sent. */
export async function claimJob(deps: Pick<GenerationActivityDeps, 'jobStore' | 'generations' | 'notifyStarted'>, input: GenerationStart): Promise<Date | null> {
  const ctx = Context.current();
  const claim = await deps.jobStore.claim(input.jobId, input.expectedProcessingSeconds);
  if (!claim.claimed) {
    ctx.log.info('job not claimed', { jobId: input.jobId, status: claim.status });
    return null;
  }
  if (!claim.resumed) {
    await deps.notifyStarted(input.jobId, claim.startedAt).catch((err: unknown) => {
      ctx.log.warn('could not signal job start', { jobId: input.jobId, error: String(err) });
    });
  }
  const { id, number, role = number === 1 ? 'first' : 'failover' } = input.attempt;
  await deps.generations.beginAttempt({ jobId: input.jobId, attemptId: id }, number, input.providerId, role);
  return claim.startedAt;
}
