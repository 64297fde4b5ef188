/**
 * A provider that generates in the worker renders while the rest of the claim is under way (the workflow told the job
 * started, the attempt's row written), and stores its outputs only once both are done; a render that fails still
 * waits for the attempt's row, so that the attempt the workflow then ends is on record. A paid request to an upstream
 * is sent only after the whole claim. A generation in the worker that ends within the started signal's delay sends
 * none; one that runs longer sends it once the delay is up, answered before its outputs are stored. The stores, the
 * signal and the adapters are stand-ins.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { createGenerationActivities, type GenerationActivityDeps } from '../../../activities/generation';
import type { GenerationStore } from '../../../src/jobs/generationStore';
import { ProviderError, type ProviderAdapter } from '../../../src/providers/types';

const start = {
  jobId: 'job_overlap',
  providerId: 'pixelforge',
  modelSlug: 'pixelforge/forge-pro/text-to-image',
  capability: 'text-to-image',
  versionId: 'v2',
  input: { prompt: 'a lighthouse' },
  attempt: { id: 'job_overlap.1', number: 1, role: 'first' as const },
  expectedProcessingSeconds: 1,
  deadline: new Date(Date.now() + 60_000).toISOString(),
};

/** A promise and the function that settles it, to hold a stand-in store's answer until the test lets it go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** The generation activities over stand-ins that log what happens, in order, into `log`. */
function activitiesWith(log: string[], adapter: ProviderAdapter, hold: { signal: Promise<void>; attemptRow: Promise<void> }, startedSignalDelayMs = 0) {
  const generations: Partial<GenerationStore> = {
    beginAttempt: async () => {
      log.push('attempt row: begun');
      await hold.attemptRow;
      log.push('attempt row: written');
    },
    claimOutputs: async () => {
      log.push('outputs claimed');
      return true;
    },
    releaseOutputs: async () => undefined,
    state: async () => ({ upstreamId: null, upstreamSubmittedAt: null, startedAt: new Date() }),
    markSubmitting: async () => true,
    recordUpstreamId: async () => undefined,
    recordSnapshot: async () => undefined,
  };
  return createGenerationActivities({
    jobStore: { claim: async () => ({ claimed: true, resumed: false, startedAt: new Date() }), recordProgress: async () => undefined } as unknown as GenerationActivityDeps['jobStore'],
    generations: generations as GenerationStore,
    adapter,
    inputFile: () => {
      throw new Error('no input files here');
    },
    putOutput: async () => undefined,
    notifyStarted: async () => {
      log.push('signal: sent');
      await hold.signal;
      log.push('signal: answered');
    },
    startedSignalDelayMs,
    pollIntervalMs: 1_000,
    safetyNetPollMs: 1_000,
    maxOutputBytes: 1024,
    allowPrivateOutputs: false,
    timeScale: 1,
  });
}

describe('the claim of a job, beside its generation', () => {
  it('lets a generation in the worker render meanwhile, and stores its outputs only once the claim is done', async () => {
    const log: string[] = [];
    const signal = gate();
    const attemptRow = gate();
    const adapter: ProviderAdapter = {
      id: 'pixelforge',
      finishesAtOnce: true,
      async submit() {
        log.push('render');
        // The claim's two writes are let go only once the render has run: a render that waited for them never ends.
        signal.open();
        setTimeout(attemptRow.open, 20);
        return { id: start.jobId, state: 'succeeded', files: [] };
      },
      status: async () => ({ id: start.jobId, state: 'running' }),
      cancel: async () => undefined,
    };
    const activities = activitiesWith(log, adapter, { signal: signal.opened, attemptRow: attemptRow.opened });
    // No files: storing refuses them (BAD_OUTPUT), after the claim on the outputs, which is what is looked at here.
    await new MockActivityEnvironment().run(activities.startGeneration, start).catch(() => undefined);
    expect(log.indexOf('render')).toBeLessThan(log.indexOf('attempt row: written'));
    expect(log.indexOf('attempt row: written')).toBeLessThan(log.indexOf('outputs claimed'));
    expect(log.indexOf('signal: answered')).toBeLessThan(log.indexOf('outputs claimed'));
  });

  it('waits for the attempt row when the render fails, before the failure is answered', async () => {
    const log: string[] = [];
    const attemptRow = gate();
    const adapter: ProviderAdapter = {
      id: 'pixelforge',
      finishesAtOnce: true,
      async submit() {
        log.push('render');
        setTimeout(attemptRow.open, 20);
        throw new ProviderError('PROVIDER_REJECTED_INPUT', 'the input could not be rendered', { retryable: false });
      },
      status: async () => ({ id: start.jobId, state: 'running' }),
      cancel: async () => undefined,
    };
    const activities = activitiesWith(log, adapter, { signal: Promise.resolve(), attemptRow: attemptRow.opened });
    const failure = await new MockActivityEnvironment().run(activities.startGeneration, start).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    log.push('failure answered');
    expect(failure?.message).toBe('the input could not be rendered');
    expect(log).toEqual(['signal: sent', 'attempt row: begun', 'signal: answered', 'render', 'attempt row: written', 'failure answered']);
  });

  it('sends a paid request to an upstream only after the whole claim', async () => {
    const log: string[] = [];
    const signal = gate();
    const attemptRow = gate();
    setTimeout(signal.open, 20);
    setTimeout(attemptRow.open, 40);
    const adapter: ProviderAdapter = {
      id: 'fal',
      async submit() {
        log.push('paid request');
        return { id: 'req-1', state: 'succeeded', result: {} };
      },
      status: async () => ({ id: 'req-1', state: 'running' }),
      cancel: async () => undefined,
    };
    const activities = activitiesWith(log, adapter, { signal: signal.opened, attemptRow: attemptRow.opened });
    await new MockActivityEnvironment().run(activities.startGeneration, { ...start, providerId: 'fal' }).catch(() => undefined);
    expect(log.indexOf('paid request')).toBeGreaterThan(log.indexOf('signal: answered'));
    expect(log.indexOf('paid request')).toBeGreaterThan(log.indexOf('attempt row: written'));
  });

  it('sends no started signal for a generation in the worker that ends within the delay', async () => {
    const log: string[] = [];
    const adapter: ProviderAdapter = {
      id: 'pixelforge',
      finishesAtOnce: true,
      async submit() {
        log.push('render');
        return { id: start.jobId, state: 'succeeded', files: [] };
      },
      status: async () => ({ id: start.jobId, state: 'running' }),
      cancel: async () => undefined,
    };
    const activities = activitiesWith(log, adapter, { signal: Promise.resolve(), attemptRow: Promise.resolve() }, 500);
    await new MockActivityEnvironment().run(activities.startGeneration, start).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(log).toContain('outputs claimed');
    expect(log).not.toContain('signal: sent');
  });

  it('sends the started signal of a generation in the worker that runs past the delay, answered before its outputs are stored', async () => {
    const log: string[] = [];
    const signal = gate();
    const adapter: ProviderAdapter = {
      id: 'pixelforge',
      finishesAtOnce: true,
      async submit() {
        log.push('render');
        await new Promise((resolve) => setTimeout(resolve, 80));
        setTimeout(signal.open, 20);
        return { id: start.jobId, state: 'succeeded', files: [] };
      },
      status: async () => ({ id: start.jobId, state: 'running' }),
      cancel: async () => undefined,
    };
    const activities = activitiesWith(log, adapter, { signal: signal.opened, attemptRow: Promise.resolve() }, 30);
    await new MockActivityEnvironment().run(activities.startGeneration, start).catch(() => undefined);
    expect(log.indexOf('render')).toBeLessThan(log.indexOf('signal: sent'));
    expect(log.indexOf('signal: answered')).toBeLessThan(log.indexOf('outputs claimed'));
  });
});
