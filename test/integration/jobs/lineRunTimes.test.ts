/** A line's run times as PostgreSQL gives them: the window of recent runs, and its newest runs against the older. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineRunTime, readProviderLine, versionKey } from '../../../src/jobs/eta/line';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { startTestApi } from '../../support/api';
import type { RunningApi } from '../../../src/api/server';

const MODEL = 'pixelforge/forge-pro/text-to-image';
const VERSION = 'v2';

let api: RunningApi;
let account: TestAccount;

beforeAll(async () => {
  api = await startTestApi();
  account = await createTestAccount(api.deps.prisma);
});

afterAll(() => api?.stop());

/** Succeeded runs of MODEL on `taskQueue`, oldest first, each of the given seconds, ended a second apart. */
async function recordRuns(taskQueue: string, seconds: number[]): Promise<void> {
  const prisma = api.deps.prisma;
  const now = Date.now();
  for (const [i, duration] of seconds.entries()) {
    const jobId = `job_${taskQueue.replace(/\W/g, '')}_${i}`;
    const endedAt = new Date(now - (seconds.length - i) * 1_000);
    await prisma.job.create({
      data: {
        id: jobId, accountId: account.accountId, modelSlug: MODEL, modelId: MODEL, versionId: VERSION, providerId: 'pixelforge',
        status: 'completed', input: {}, costMicroCents: 1n, estimatedCompletionTime: endedAt, taskQueue,
      },
    });
    await prisma.jobAttempt.create({
      data: {
        id: `${jobId}.1`, jobId, number: 1, providerId: 'pixelforge', status: 'succeeded', taskQueue,
        startedAt: new Date(endedAt.getTime() - duration * 1_000), endedAt,
      },
    });
  }
}

async function runTimeOn(taskQueue: string) {
  const line = await readProviderLine(api.deps.prisma, { taskQueue, providerId: 'pixelforge' }, 1, [versionKey(MODEL, VERSION)]);
  return { observed: line.versions.get(versionKey(MODEL, VERSION))?.observed, runTime: lineRunTime(line, versionKey(MODEL, VERSION), 1) };
}

describe("a line's run times", () => {
  it('gives the last 20 runs of a version, and estimates a steady route from the whole window', async () => {
    const queue = `provider.steady-${account.accountId.slice(-8)}`;
    await recordRuns(queue, Array.from({ length: 25 }, (_, i) => 1 + (i % 5) / 10));
    const { observed, runTime } = await runTimeOn(queue);
    expect(observed).toMatchObject({ runs: 20 });
    expect(observed!.p50Seconds).toBeCloseTo(1.2, 5);
    expect(observed!.p90Seconds).toBeCloseTo(1.4, 5);
    expect(observed!.current).toBeUndefined();
    expect(runTime.p50Seconds).toBeCloseTo(1.2, 5);
  });

  it('estimates a route whose last runs turned three times slower from those runs, before half of the window has', async () => {
    const queue = `provider.slowed-${account.accountId.slice(-8)}`;
    await recordRuns(queue, [...Array.from({ length: 17 }, () => 1), 3, 3.2, 3.4]);
    const { observed, runTime } = await runTimeOn(queue);
    expect(observed!.p50Seconds).toBeCloseTo(1, 5);
    expect(runTime.p50Seconds).toBeCloseTo(3, 5);
    expect(runTime.p90Seconds).toBeGreaterThan(3.2);
  });
});
