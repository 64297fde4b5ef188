/**
 * The generation activities take an input's upstream mapping under either name: a run started before the rename
 * schedules them with `route`, and provider workers serve every build (docs/workflow-versioning.md). Whichever name it
 * came under, the adapter is handed the mapping, and a start maps the input by it. The job stores and the adapter are
 * stand-ins.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import type { GenerationRef, GenerationSnapshot, Submission } from '../../../src/providers/types';
import type { UpstreamAdapter, UpstreamSubmission } from '../../../src/providers/upstreams/types';
import type { GenerationStart, RecordedMapping, UpstreamMapping } from '../../../src/shared/upstreams';
import { generationActivitiesWith } from './generationDeps';

const FLUX: UpstreamMapping = { model: 'fal-ai/flux/dev', input: { prompt: '$prompt', num_images: 1 }, outputs: ['images[].url'] };
const queued: GenerationSnapshot = { id: 'req-1', state: 'queued' };

function recordingActivities(upstreamId: string | null = null) {
  const submitted: UpstreamSubmission[] = [];
  const refs: { call: string; ref: GenerationRef }[] = [];
  const adapter: UpstreamAdapter = {
    id: 'fal',
    prepareFile: async () => undefined,
    submit: async (submission: Submission) => (submitted.push(submission), queued),
    status: async (ref) => (refs.push({ call: 'status', ref }), queued),
    cancel: async (ref) => void refs.push({ call: 'cancel', ref }),
  };
  const activities = generationActivitiesWith(adapter, {
    generations: {
      state: async () => ({ upstreamId, upstreamSubmittedAt: upstreamId ? new Date() : null, startedAt: new Date() }),
      beginAttempt: async () => undefined,
      markSubmitting: async () => true,
      recordUpstreamId: async () => undefined,
      recordSnapshot: async () => undefined,
    },
    jobStore: { claim: async () => ({ claimed: true, resumed: true, startedAt: new Date() }), recordProgress: async () => undefined },
  });
  return { activities, submitted, refs };
}

const start = (mapping: RecordedMapping): GenerationStart & RecordedMapping => ({
  jobId: 'job_m',
  attempt: { id: 'job_m.1', number: 1, role: 'first' },
  providerId: 'fal',
  modelSlug: 'black-forest-labs/flux-dev/text-to-image',
  capability: 'text-to-image',
  versionId: 'v1',
  input: { prompt: 'a lighthouse' },
  expectedProcessingSeconds: 5,
  deadline: new Date(Date.now() + 60_000).toISOString(),
  ...mapping,
});

describe.each([
  ['its name, `mapping`', { mapping: FLUX }],
  ['its earlier name, `route`', { route: FLUX }],
])('the generation activities, given the upstream mapping under %s', (_name, mapping: RecordedMapping) => {
  it('submit the input mapped by it, and hand the adapter the mapping', async () => {
    const { activities, submitted } = recordingActivities();
    const progress = await new MockActivityEnvironment().run(activities.startGeneration, start(mapping));
    expect(progress).toMatchObject({ outcome: 'waiting', upstreamId: 'req-1' });
    expect(submitted).toHaveLength(1);
    expect(submitted[0]).toMatchObject({ mapping: FLUX, input: { prompt: 'a lighthouse', num_images: 1 } });
    expect(submitted[0]).not.toHaveProperty('route');
  });

  it('check and cancel the generation with it', async () => {
    const { activities, refs } = recordingActivities('req-1');
    const check = { jobId: 'job_m', attemptId: 'job_m.1', providerId: 'fal', modelSlug: 'black-forest-labs/flux-dev/text-to-image', upstreamId: 'req-1', expectedProcessingSeconds: 5, ...mapping };
    await new MockActivityEnvironment().run(activities.checkGeneration, check);
    await new MockActivityEnvironment().run(activities.cancelGeneration, { jobId: 'job_m', attemptId: 'job_m.1', ...mapping });
    expect(refs.map(({ call, ref }) => [call, ref])).toEqual([
      ['status', { id: 'req-1', mapping: FLUX }],
      ['cancel', { id: 'req-1', mapping: FLUX }],
      ['status', { id: 'req-1', mapping: FLUX }],
    ]);
  });
});
