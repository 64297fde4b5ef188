/**
 * A paid request in flight when its attempt is cancelled (a hedge's loser): the request runs to its answer, whose id
 * is stored, and the cancel waits for that id (retried) instead of finding nothing to cancel. The job stores and the
 * adapter are stand-ins.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import type { GenerationSnapshot } from '../../../src/providers/types';
import type { UpstreamAdapter } from '../../../src/providers/upstreams/types';
import type { UpstreamMapping } from '../../../src/shared/upstreams';
import { generationActivitiesWith } from './generationDeps';

const route = { model: 'fal-ai/flux/dev', input: {}, outputs: ['images[].url'] } as unknown as UpstreamMapping;

const queued: GenerationSnapshot = { id: 'req-1', state: 'queued' };

function activities(adapter: UpstreamAdapter, state: { upstreamId: string | null; upstreamSubmittedAt: Date | null }, recorded: string[] = []) {
  return generationActivitiesWith(adapter, {
    generations: {
      state: async () => ({ ...state, startedAt: new Date() }),
      beginAttempt: async () => undefined,
      markSubmitting: async () => true,
      recordUpstreamId: async (_key, id) => void recorded.push(id),
      recordSnapshot: async () => undefined,
    },
    jobStore: { claim: async () => ({ claimed: true, resumed: true, startedAt: new Date() }), recordProgress: async () => undefined },
  });
}

/** An upstream whose generations stay queued; it notes each cancel in `cancelled`. */
function queuedUpstream(cancelled: string[]): UpstreamAdapter {
  return {
    id: 'fal',
    prepareFile: async () => undefined,
    submit: async () => queued,
    status: async () => queued,
    cancel: async ({ id }) => void cancelled.push(id),
  };
}

describe('a paid request in flight when its attempt is cancelled', () => {
  it('runs to its answer, whose id is stored', async () => {
    let abortedDuringSubmit: boolean | undefined;
    const recorded: string[] = [];
    const env = new MockActivityEnvironment();
    const adapter: UpstreamAdapter = {
      id: 'fal',
      prepareFile: async () => undefined,
      async submit(_submission, signal) {
        env.cancel();
        await new Promise((resolve) => setTimeout(resolve, 100));
        abortedDuringSubmit = signal.aborted;
        return queued;
      },
      status: async () => queued,
      cancel: async () => undefined,
    };
    const started = activities(adapter, { upstreamId: null, upstreamSubmittedAt: null }, recorded);
    await env
      .run(started.startGeneration, {
        jobId: 'job_h',
        providerId: 'fal',
        modelSlug: 'black-forest-labs/flux-dev/text-to-image',
        capability: 'text-to-image',
        versionId: 'v1',
        input: { prompt: 'a loser of a race' },
        mapping: route,
        attempt: { id: 'job_h.1', number: 1, role: 'first' as const },
        expectedProcessingSeconds: 5,
        deadline: new Date(Date.now() + 60_000).toISOString(),
      })
      .catch(() => undefined);
    expect(abortedDuringSubmit).toBe(false);
    expect(recorded).toEqual(['req-1']);
  });

  it('makes the cancel wait (a retryable failure) until the answer is stored', async () => {
    const cancelled: string[] = [];
    const adapter = queuedUpstream(cancelled);
    const inFlight = activities(adapter, { upstreamId: null, upstreamSubmittedAt: new Date() });
    const failure = await new MockActivityEnvironment().run(inFlight.cancelGeneration, { jobId: 'job_h', attemptId: 'job_h.2', mapping: route }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'SUBMISSION_IN_FLIGHT', nonRetryable: false });

    const answered = activities(adapter, { upstreamId: 'req-1', upstreamSubmittedAt: new Date() });
    await new MockActivityEnvironment().run(answered.cancelGeneration, { jobId: 'job_h', attemptId: 'job_h.2', mapping: route });
    expect(cancelled).toEqual(['req-1']);
  });

  it('finds nothing to cancel where nothing was sent', async () => {
    const cancelled: string[] = [];
    const adapter = queuedUpstream(cancelled);
    const nothing = activities(adapter, { upstreamId: null, upstreamSubmittedAt: null });
    await new MockActivityEnvironment().run(nothing.cancelGeneration, { jobId: 'job_h', attemptId: 'job_h.2', mapping: route });
    expect(cancelled).toEqual([]);
  });
});
