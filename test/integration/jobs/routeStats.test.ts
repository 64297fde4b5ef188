/** Route statistics read from job_attempts in PostgreSQL: what route health and the choice by speed go by. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRouteStats } from '../../../src/jobs/routeStats';
import { createTestAccount } from '../../support/accounts';
import { startTestApi } from '../../support/api';
import type { RunningApi } from '../../../src/api/server';

let api: RunningApi;

beforeAll(async () => {
  api = await startTestApi();
});

afterAll(() => api?.stop());

describe('readRouteStats', () => {
  it("counts a route's ended and provider-side failed attempts in the window, its p90 time to start and median time to complete", async () => {
    const prisma = api.deps.prisma;
    const account = await createTestAccount(prisma);
    const provider = `stats-${account.accountId.slice(-8).toLowerCase()}`;
    const now = new Date();
    const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
    const jobId = `job_${account.accountId.slice(-12)}`;
    await prisma.job.create({
      data: {
        id: jobId, accountId: account.accountId, modelSlug: 'genmedia/relay/text-to-image', modelId: 'genmedia/relay/text-to-image',
        versionId: 'v1', providerId: provider, status: 'processing', input: {}, costMicroCents: 1n, estimatedCompletionTime: now,
      },
    });
    const attempt = (number: number, row: { status: string; started: number; running?: number; ended?: number; errorCode?: string }) => ({
      id: `${jobId}.${number}`, jobId, number, providerId: provider, status: row.status, startedAt: ago(row.started),
      runningAt: row.running === undefined ? null : ago(row.running), endedAt: row.ended === undefined ? null : ago(row.ended), errorCode: row.errorCode ?? null,
    });
    await prisma.jobAttempt.createMany({
      data: [
        attempt(1, { status: 'succeeded', started: 100, running: 90, ended: 70 }), // 10 s to start, 30 s to complete
        attempt(2, { status: 'succeeded', started: 200, running: 180, ended: 150 }), // 20 s, 50 s
        attempt(3, { status: 'failed', started: 50, ended: 49, errorCode: 'PROVIDER_UNAVAILABLE' }),
        attempt(4, { status: 'failed', started: 40, ended: 39, errorCode: 'PROVIDER_REJECTED_INPUT' }), // the client's input: not the provider's fault
        attempt(5, { status: 'running', started: 30, running: 25 }), // 5 s to start, not ended
        attempt(6, { status: 'failed', started: 3600, ended: 3599, errorCode: 'PROVIDER_UNAVAILABLE' }), // outside the 5-minute window
        attempt(7, { status: 'succeeded', started: 4000, running: 3990, ended: 3930 }), // 70 s to complete, in the speed window only
        attempt(8, { status: 'cancelled', started: 60, ended: 20 }), // cancelled before it started: at least 40 s to start
        attempt(9, { status: 'starting', started: 45 }), // not started yet: at least 45 s so far
      ],
    });
    const stats = (await readRouteStats(prisma, 'genmedia/relay/text-to-image', [provider, 'nobody'], 300, now)).get(provider)!;
    expect(stats).toMatchObject({ ended: 5, failed: 1 });
    // Starts of 5, 10, 20, at least 40 and at least 45 s in the window: p90 by linear interpolation.
    expect(stats.p90StartSeconds).toBeCloseTo(43, 5);
    expect(stats.medianCompleteSeconds).toBeCloseTo(50, 5);
    expect((await readRouteStats(prisma, 'genmedia/relay/text-to-image', ['nobody'], 300, now)).size).toBe(0);
    // Another model's routes on the same provider are another route.
    expect((await readRouteStats(prisma, 'pixelforge/forge-lite/text-to-image', [provider], 300, now)).size).toBe(0);
  });
});
