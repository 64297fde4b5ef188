/**
 * An attempt claims the job's outputs before it stores them, and gives the claim up when it cannot store them (an
 * output refused, a download or a write that failed), so that the attempt storing them next (a hedge still running,
 * the next route) is not refused them; one that stored them keeps it. The job stores and the adapter are stand-ins.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGenerationActivities, type GenerationActivityDeps } from '../../../activities/generation';
import type { AttemptKey, GenerationStore } from '../../../src/jobs/generationStore';
import type { UpstreamAdapter } from '../../../src/providers/upstreams/types';
import type { UpstreamMapping } from '../../../src/shared/upstreams';
import { failureOf } from './generationDeps';

const route = { model: 'fal-ai/flux/dev', input: {}, outputs: ['images[].url'] } as unknown as UpstreamMapping;
let pngDataUri: string;

beforeAll(async () => {
  const png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#336699' } }).png().toBuffer();
  pngDataUri = `data:image/png;base64,${png.toString('base64')}`;
});

/** A generation that succeeded with one output at `url`. */
function succeededWith(url: string): UpstreamAdapter {
  return {
    id: 'fal',
    prepareFile: async () => undefined,
    submit: async () => ({ id: 'req-1', state: 'queued' }),
    status: async () => ({ id: 'req-1', state: 'succeeded', result: { images: [{ url }] } }),
    cancel: async () => undefined,
  };
}

/** The job's claim on its outputs, as jobs.winning_attempt keeps it. */
function claims() {
  let holder: string | null = null;
  const store: Partial<GenerationStore> = {
    state: async () => ({ upstreamId: 'req-1', upstreamSubmittedAt: new Date(), startedAt: new Date() }),
    recordSnapshot: async () => undefined,
    claimOutputs: async ({ attemptId }: AttemptKey) => {
      if (holder !== null && holder !== attemptId) return false;
      holder = attemptId ?? null;
      return true;
    },
    releaseOutputs: async ({ attemptId }: AttemptKey) => {
      if (holder === attemptId) holder = null;
    },
  };
  return { store: store as GenerationStore, holder: () => holder };
}

async function check(url: string, generations: GenerationStore, putOutput: GenerationActivityDeps['putOutput'] = async () => undefined) {
  const activities = createGenerationActivities({
    jobStore: {} as GenerationActivityDeps['jobStore'],
    generations,
    adapter: succeededWith(url),
    inputFile: () => {
      throw new Error('no input files here');
    },
    putOutput,
    notifyStarted: async () => undefined,
    pollIntervalMs: 1_000,
    safetyNetPollMs: 1_000,
    maxOutputBytes: 1024 * 1024,
    allowPrivateOutputs: false,
    timeScale: 1,
  });
  return new MockActivityEnvironment().run(activities.checkGeneration, {
    jobId: 'job_claims',
    attemptId: 'job_claims.1',
    providerId: 'fal',
    modelSlug: 'black-forest-labs/flux-dev/text-to-image',
    mapping: route,
    upstreamId: 'req-1',
    expectedProcessingSeconds: 10,
  });
}

describe('the claim on a job\'s outputs', () => {
  it('is given up when the output is refused (BAD_OUTPUT)', async () => {
    const { store, holder } = claims();
    const failure = await failureOf(check('http://127.0.0.1:9/output.png', store));
    expect(failure).toMatchObject({ type: 'BAD_OUTPUT', nonRetryable: true });
    expect(holder()).toBeNull();
  });

  it('is given up when storing the output fails, and taken again by the retry that stores it', async () => {
    const { store, holder } = claims();
    const unavailable = async () => {
      throw new Error('storage unavailable');
    };
    await expect(check(pngDataUri, store, unavailable)).rejects.toThrow('storage unavailable');
    expect(holder()).toBeNull();
    const retried = await check(pngDataUri, store);
    expect(retried).toMatchObject({ outcome: 'completed', outputs: [{ key: 'job_claims/output-1.png' }] });
    expect(holder()).toBe('job_claims.1');
  });

  it('is kept by the attempt that stored the outputs, and refuses another attempt', async () => {
    const { store, holder } = claims();
    expect(await check(pngDataUri, store)).toMatchObject({ outcome: 'completed' });
    expect(holder()).toBe('job_claims.1');
    expect(await store.claimOutputs({ jobId: 'job_claims', attemptId: 'job_claims.2' })).toBe(false);
  });
});
