/**
 * The job's claim on its outputs: when attempts race (a hedge beside the attempt it hedged), the first to finish
 * claims the job's outputs and stores them; the others' are not stored.
 */
import { Context } from '@temporalio/activity';
import type { AttemptKey, GenerationStore } from '../../src/jobs/generationStore';
import type { FailureCode } from '../../src/shared/failureCodes';
import type { JobOutput } from '../../src/shared/jobs';
import type { GenerationProgress } from '../../src/shared/upstreams';

/**
 * Stores the outputs of a generation that succeeded under the job's claim on them, taken first; null when another
 * attempt holds it. Outputs that could not be stored (refused, or a download that failed) leave the claim free: a
 * retry of this attempt takes it again, and otherwise the attempt that would store them next (a hedge still
 * running, the next route) can.
 */
export async function storeClaimed(
  generations: Pick<GenerationStore, 'claimOutputs' | 'releaseOutputs'>,
  key: AttemptKey,
  store: () => Promise<JobOutput[]>,
): Promise<JobOutput[] | null> {
  if (!(await generations.claimOutputs(key))) return null;
  try {
    return await store();
  } catch (err) {
    try {
      await generations.releaseOutputs(key);
    } catch (error) {
      Context.current().log.warn('could not release the claim on the outputs', { jobId: key.jobId, error: String(error) });
    }
    throw err;
  }
}

/** Another attempt of the job (a hedge, or the attempt it hedged) finished first: its outputs are the job's. */
export function outputsTaken(upstreamId: string): GenerationProgress {
  return {
    outcome: 'failed',
    upstreamId,
    error: { code: 'OUTPUTS_TAKEN' satisfies FailureCode, message: 'Another attempt of this job finished first; its outputs are the job\'s' },
  };
}
