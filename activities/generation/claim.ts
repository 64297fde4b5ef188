/**
 * Claiming a job for one attempt: pending → processing in PostgreSQL (what a cancel races against), the workflow told
 * the job started, and the attempt's row written. A retried activity finds the job already claimed by it (`resumed`).
 *
 * The workflow is told by a signal, which costs the job a workflow task (and Temporal its history events and search
 * attribute write). A generation in the worker sends it only once it has run for `startedSignalDelayMs`: one that
 * ends sooner tells the workflow with its result instead. The cancel and the deadline race PostgreSQL's claim, not
 * the workflow's status, so they decide the same either way; only the `JobStatus` search attribute stays `pending`
 * for that moment.
 */
import { Context } from '@temporalio/activity';
import type { GenerationStart } from '../../src/shared/upstreams';
import type { GenerationActivityDeps } from './deps';

export interface ClaimedJob {
  /** When the job started processing. */
  startedAt: Date;
  /**
   * The rest of the claim, under way once the job is processing: the workflow told (best effort; at once, or once a
   * deferred signal is due) and the attempt's row written. A generation in the worker renders meanwhile and awaits it
   * before storing anything; a paid request to an upstream is sent only after it. It always has a handler, so a
   * render that fails first leaves no rejection unheard.
   */
  recorded(): Promise<void>;
}

export interface ClaimOptions {
  /** Tell the workflow the job started only once it has run this long (0: at once); `recorded()` then sends none. */
  startedSignalDelayMs?: number;
}

/** The job claimed for this attempt; null when a cancel won the race and nothing may be sent. */
export async function claimJob(
  deps: Pick<GenerationActivityDeps, 'jobStore' | 'generations' | 'notifyStarted'>,
  input: GenerationStart,
  options: ClaimOptions = {},
): Promise<ClaimedJob | null> {
  const ctx = Context.current();
  const claim = await deps.jobStore.claim(input.jobId, input.expectedProcessingSeconds);
  if (!claim.claimed) {
    ctx.log.info('job not claimed', { jobId: input.jobId, status: claim.status });
    return null;
  }
  const tell = () =>
    deps.notifyStarted(input.jobId, claim.startedAt).catch((err: unknown) => {
      ctx.log.warn('could not signal job start', { jobId: input.jobId, error: String(err) });
    });
  const delayMs = options.startedSignalDelayMs ?? 0;
  let told: Promise<void> | undefined;
  let due: ReturnType<typeof setTimeout> | undefined;
  if (!claim.resumed) {
    if (delayMs <= 0) told = tell();
    else due = setTimeout(() => (told = tell()), delayMs);
  }
  const { id, number, role = number === 1 ? 'first' : 'failover' } = input.attempt;
  const attemptRow = deps.generations.beginAttempt({ jobId: input.jobId, attemptId: id }, number, input.providerId, role, ctx.info.taskQueue);
  attemptRow.catch(() => undefined);
  return {
    startedAt: claim.startedAt,
    recorded: async () => {
      clearTimeout(due);
      await Promise.all([told, attemptRow]);
    },
  };
}
