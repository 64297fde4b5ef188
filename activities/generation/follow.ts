/**
 * Following a generation the provider runs: each snapshot is recorded on the attempt and the job, and turned into what
 * the workflow does next (check again after a while, or the outcome, with the outputs stored once it succeeded).
 */
import type { AttemptKey, GenerationStore } from '../../src/jobs/generationStore';
import { ProviderError, type GenerationSnapshot } from '../../src/providers/types';
import type { GenerationCheck, GenerationProgress, GenerationStart } from '../../src/shared/upstreams';
import { outputsTaken, storeClaimed } from './outputClaim';
import type { OutputStore } from '../../src/outputs/storing/outputStore';
import { estimateCompletion, progressOf } from './progress';
import { upstreamQueueWaitSeconds } from '../../src/jobs/eta/upstreamQueue';

export function keyOf(input: GenerationStart | GenerationCheck): AttemptKey {
  return { jobId: input.jobId, attemptId: 'attempt' in input ? input.attempt.id : input.attemptId };
}

export interface FollowDeps {
  generations: GenerationStore;
  outputs: OutputStore;
  /** When to check a generation again: sooner while it is queued, a safety net while callbacks are expected. */
  nextCheckAfter(running: boolean): number;
  now: () => number;
}

export function createFollower(deps: FollowDeps) {
  const { generations, outputs, now } = deps;

  /** A generation that ended without outputs may still have been billed: kept where the provider reports it. */
  async function recordCostOf(key: AttemptKey, snapshot: GenerationSnapshot): Promise<void> {
    if (snapshot.upstreamCostMicroCents !== undefined) await generations.recordCost(key, snapshot.upstreamCostMicroCents);
  }

  /** When an upstream will start a generation now at `position` in its queue, at the pace that queue moved for it. */
  async function upstreamQueueStart(key: AttemptKey, position: number, at: number): Promise<Date> {
    const { first, nowMs } = await generations.noteQueuePosition(key, position);
    return new Date(at + upstreamQueueWaitSeconds(first, position, nowMs) * 1000);
  }

  /** Records where a generation stands and says what the workflow does next. */
  async function follow(input: GenerationStart | GenerationCheck, snapshot: GenerationSnapshot, startedAt: Date, signal: AbortSignal): Promise<GenerationProgress> {
    const upstreamId = snapshot.id;
    const key = keyOf(input);
    switch (snapshot.state) {
      case 'succeeded': {
        const stored = await storeClaimed(generations, key, () => outputs.store(input.jobId, input.mapping, snapshot, signal));
        if (!stored) return outputsTaken(upstreamId);
        await generations.recordSnapshot(key, {
          running: true,
          progress: 99,
          estimatedCompletionTime: new Date(now()),
          stage: snapshot.stage ?? 'succeeded',
          queuePosition: null,
          costMicroCents: snapshot.upstreamCostMicroCents,
        });
        return { outcome: 'completed', upstreamId, outputs: stored };
      }
      case 'failed': {
        await recordCostOf(key, snapshot);
        const error = snapshot.error ?? new ProviderError('PROVIDER_JOB_FAILED', 'the upstream reported the generation as failed', { retryable: false });
        return { outcome: 'failed', upstreamId, error: { code: error.code, message: error.message } };
      }
      case 'cancelled':
        await recordCostOf(key, snapshot);
        return { outcome: 'failed', upstreamId, error: { code: 'PROVIDER_CANCELLED', message: 'the upstream cancelled the generation' } };
      default: {
        const at = now();
        const progress = progressOf(snapshot, startedAt.getTime(), at, input.expectedProcessingSeconds);
        const queued = snapshot.state === 'queued' && snapshot.queuePosition !== undefined ? await upstreamQueueStart(key, snapshot.queuePosition, at) : null;
        await generations.recordSnapshot(key, {
          running: snapshot.state === 'running',
          progress,
          // Waiting in the upstream's own queue, the run starts once the queue has moved up to it.
          estimatedCompletionTime: queued
            ? new Date(queued.getTime() + input.expectedProcessingSeconds * 1000)
            : estimateCompletion(startedAt.getTime(), at, progress, input.expectedProcessingSeconds),
          ...(queued ? { estimatedStartTime: queued } : {}),
          stage: snapshot.stage ?? snapshot.state,
          queuePosition: snapshot.queuePosition ?? null,
          costMicroCents: snapshot.upstreamCostMicroCents,
        });
        const running = snapshot.state === 'running';
        return { outcome: 'waiting', upstreamId, nextCheckMs: deps.nextCheckAfter(running), running };
      }
    }
  }

  return { follow, recordCostOf };
}

export type Follower = ReturnType<typeof createFollower>;
