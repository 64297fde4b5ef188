/**
 * Provider failures through the whole job: transient failures are retried and charged once; a job that fails
 * keeps no output, even one an earlier attempt had already stored.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishedAtOnce, ProviderError, type Generator } from '../../../src/providers/types';
import { createTestAccount, eventually } from '../../support/stack';
import { balanceOf, ledgerOf, post, startE2eStack, waitForFinal, type E2eStack } from './e2eStack';

let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack({ providers: ['pixelforge'] });
});

afterAll(async () => {
  await stack?.stop();
});

/** Attempt numbers of the provider activity, from the job workflow's history. */
async function providerAttempts(jobId: string): Promise<{ started: number[]; failed: number }> {
  const events = await stack.history(jobId);
  const providerScheduled = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'startGeneration')
      .map((e) => String(e.eventId)),
  );
  const started = events
    .filter((e) => providerScheduled.has(String(e.activityTaskStartedEventAttributes?.scheduledEventId)))
    .map((e) => e.activityTaskStartedEventAttributes!.attempt!);
  const failed = events.filter((e) => providerScheduled.has(String(e.activityTaskFailedEventAttributes?.scheduledEventId))).length;
  return { started, failed };
}

describe('transient provider failures', () => {
  it('[fail:transient:2] completes on the third attempt, charged exactly once', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'pixelforge/forge-pro/text-to-image',
      input: { prompt: 'a stubborn lighthouse [fail:transient:2]' },
    });
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.jobId;

    const job = await waitForFinal(stack, account.apiKey, jobId);
    expect(job).toMatchObject({ status: 'completed', progress: 100, costMicroCents: 45_000, refundedMicroCents: 0, error: null });
    expect(job.outputs).toHaveLength(1);
    // Retries of one activity: the history records the final attempt's start (3) and no failure event.
    expect(await providerAttempts(jobId)).toEqual({ started: [3], failed: 0 });
    expect(await ledgerOf(stack, jobId)).toEqual([['charge', -45_000n]]);
    expect(await balanceOf(stack, account.accountId)).toBe(1_000_000n - 45_000n);
    expect(await stack.storedOutputs(jobId)).toEqual([`${jobId}/output-1.png`]);
  }, 60_000);
});

describe('outputs of failed jobs are not kept', () => {
  it('deletes an output an earlier attempt stored before the job failed', async () => {
    // Attempt 1 stores its first output, then fails retryably on the second; attempt 2 fails permanently,
    // but only once the test has seen attempt 1's object in the bucket.
    let storedSeen!: () => void;
    const seen = new Promise<void>((resolve) => (storedSeen = resolve));
    const generator: Generator = {
      async generate(_req, ctx) {
        if (ctx.attempt === 1) {
          const image = path.join(ctx.workDir, 'image-1.png');
          const info = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#336699' } }).png().toFile(image);
          return [
            { path: image, contentType: 'image/png', sizeBytes: (await stat(image)).size, width: info.width, height: info.height },
            { path: path.join(ctx.workDir, 'vanished.png'), contentType: 'image/png', sizeBytes: 1, width: 32, height: 32 },
          ];
        }
        await seen;
        throw new ProviderError('PROVIDER_JOB_FAILED', 'the generation failed', { retryable: false });
      },
      async cancel() {},
    };
    await stack.workers.startProviderWorker('lumina', { adapter: finishedAtOnce('lumina', generator) });

    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'lumina/lumi-xl/text-to-image',
      input: { prompt: 'half a result' },
    });
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.jobId;
    const cost: number = submitted.body.costMicroCents;

    await eventually(async () => ((await stack.storedOutputs(jobId)).length > 0 ? true : undefined), 30_000, 50);
    expect(await stack.storedOutputs(jobId)).toEqual([`${jobId}/output-1.png`]);
    storedSeen();

    const job = await waitForFinal(stack, account.apiKey, jobId);
    expect(job).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_JOB_FAILED' }, refundedMicroCents: cost, outputs: [] });
    // The failing step marks the job failed, then deletes its outputs: wait for the second half.
    await eventually(async () => ((await stack.storedOutputs(jobId)).length === 0 ? true : undefined), 10_000, 50);
    expect(await ledgerOf(stack, jobId)).toEqual([
      ['charge', BigInt(-cost)],
      ['refund', BigInt(cost)],
    ]);
    expect(await balanceOf(stack, account.accountId)).toBe(1_000_000n);
  }, 60_000);
});
