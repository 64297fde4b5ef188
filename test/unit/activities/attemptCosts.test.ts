/**
 * An attempt that ends without outputs may still have been billed: the generation activities keep what its upstream
 * reports it cost, for a generation that failed and for one cancelled (a hedge's loser), on the attempt. The job
 * stores and the adapter are stand-ins.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import type { AttemptKey } from '../../../src/jobs/generationStore';
import type { GenerationSnapshot as UpstreamSnapshot } from '../../../src/providers/types';
import type { UpstreamMapping } from '../../../src/shared/upstreams';
import { generationActivitiesWith } from './generationDeps';

const route = { model: 'gen4', input: {}, outputs: ['output[]'] } as unknown as UpstreamMapping;

function activitiesWith(statusAfter: UpstreamSnapshot) {
  const costs: [AttemptKey, number][] = [];
  const cancelled: string[] = [];
  const activities = generationActivitiesWith(
    {
      id: 'runway',
      prepareFile: async () => undefined,
      submit: async () => ({ id: 'task-1', state: 'queued' }),
      status: async () => statusAfter,
      cancel: async ({ id }) => void cancelled.push(id),
    },
    {
      generations: {
        state: async () => ({ upstreamId: 'task-1', upstreamSubmittedAt: new Date(), startedAt: new Date() }),
        recordSnapshot: async () => undefined,
        recordCost: async (key: AttemptKey, cost: number) => void costs.push([key, cost]),
      },
    },
  );
  return { activities, costs, cancelled };
}

describe('the cost of an attempt that ended without outputs', () => {
  it('is kept for a cancelled generation, as its upstream reports it after the cancel', async () => {
    const { activities, costs, cancelled } = activitiesWith({ id: 'task-1', state: 'cancelled', upstreamCostMicroCents: 125_000 });
    await new MockActivityEnvironment().run(activities.cancelGeneration, { jobId: 'job_c', attemptId: 'job_c.2', mapping: route });
    expect(cancelled).toEqual(['task-1']);
    expect(costs).toEqual([[{ jobId: 'job_c', attemptId: 'job_c.2' }, 125_000]]);
  });

  it('is kept for a failed generation', async () => {
    const { activities, costs } = activitiesWith({ id: 'task-1', state: 'failed', upstreamCostMicroCents: 40_000 });
    const progress = await new MockActivityEnvironment().run(activities.checkGeneration, {
      jobId: 'job_f',
      attemptId: 'job_f.1',
      providerId: 'runway',
      modelSlug: 'runway/gen4-turbo/image-to-video',
      mapping: route,
      upstreamId: 'task-1',
      expectedProcessingSeconds: 10,
    });
    expect(progress).toMatchObject({ outcome: 'failed', error: { code: 'PROVIDER_JOB_FAILED' } });
    expect(costs).toEqual([[{ jobId: 'job_f', attemptId: 'job_f.1' }, 40_000]]);
  });

  it('is not invented when the upstream reports none', async () => {
    const { activities, costs } = activitiesWith({ id: 'task-1', state: 'cancelled' });
    await new MockActivityEnvironment().run(activities.cancelGeneration, { jobId: 'job_n', attemptId: 'job_n.1', mapping: route });
    expect(costs).toEqual([]);
  });
});
