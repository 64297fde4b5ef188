/**
 * A job's attempts in PostgreSQL: how each ended, recorded once, also for an attempt whose start never ran; an attempt
 * that ended without its outputs leaves them to the next.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttemptStore } from '../../../src/jobs/attempts';
import { createGenerationStore } from '../../../src/jobs/generationStore';
import { createTestAccount } from '../../support/accounts';
import { startTestApi } from '../../support/api';
import type { RunningApi } from '../../../src/api/server';

let api: RunningApi;

beforeAll(async () => {
  api = await startTestApi();
});

afterAll(() => api?.stop());

async function routedJob(): Promise<string> {
  const prisma = api.deps.prisma;
  const account = await createTestAccount(prisma);
  const jobId = `job_${account.accountId.slice(-12)}`;
  await prisma.job.create({
    data: {
      id: jobId, accountId: account.accountId, modelSlug: 'genmedia/relay/text-to-image', modelId: 'genmedia/relay/text-to-image',
      versionId: 'v1', providerId: 'pixelforge', status: 'processing', input: {}, costMicroCents: 1n, estimatedCompletionTime: new Date(),
    },
  });
  return jobId;
}

describe('the attempt store', () => {
  it("gives a first attempt whose start never reached a worker a row when it ends (its hedge won meanwhile)", async () => {
    const jobId = await routedJob();
    const store = createAttemptStore(api.deps.prisma);
    await api.deps.prisma.jobAttempt.create({ data: { id: `${jobId}.2`, jobId, number: 2, providerId: 'lumina', role: 'hedge' } });
    await store.end(`${jobId}.1`, { status: 'cancelled', producedOutputs: false }, { jobId, number: 1, providerId: 'pixelforge', role: 'first' });
    await store.end(`${jobId}.2`, { status: 'succeeded', producedOutputs: true }, { jobId, number: 2, providerId: 'lumina', role: 'hedge' });
    const listed = (await store.listFor([jobId])).get(jobId)!;
    expect(listed.map((a) => [a.number, a.provider, a.role, a.status, a.producedOutputs, a.endedAt !== null])).toEqual([
      [1, 'pixelforge', 'first', 'cancelled', false, true],
      [2, 'lumina', 'hedge', 'succeeded', true, true],
    ]);
  });

  it('records an end once: a retried end changes nothing', async () => {
    const jobId = await routedJob();
    const ended: string[] = [];
    const store = createAttemptStore(api.deps.prisma, ({ status }) => ended.push(status));
    const identity = { jobId, number: 1, providerId: 'pixelforge', role: 'first' as const };
    await store.end(`${jobId}.1`, { status: 'failed', error: { code: 'PROVIDER_UNAVAILABLE', message: 'down' }, producedOutputs: false }, identity);
    await store.end(`${jobId}.1`, { status: 'succeeded', producedOutputs: true }, identity);
    const [attempt] = (await store.listFor([jobId])).get(jobId)!;
    expect(attempt).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_UNAVAILABLE' }, producedOutputs: false });
    expect(ended).toEqual(['failed']);
  });

  it('leaves the outputs to the next route when the attempt that claimed them ended without them (its download failed)', async () => {
    const jobId = await routedJob();
    const upstream = createGenerationStore(api.deps.prisma);
    const store = createAttemptStore(api.deps.prisma);
    const first = { jobId, attemptId: `${jobId}.1` };
    const next = { jobId, attemptId: `${jobId}.2` };
    await upstream.beginAttempt(first, 1, 'pixelforge', 'first', 'provider.pixelforge');
    expect(await upstream.claimOutputs(first)).toBe(true);
    await store.end(first.attemptId, { status: 'failed', error: { code: 'PROVIDER_UNAVAILABLE', message: 'output download failed: GET answered 503' }, producedOutputs: false });
    await upstream.beginAttempt(next, 2, 'lumina', 'failover', 'provider.lumina');
    expect(await upstream.claimOutputs(next)).toBe(true);
    // A retried end of the first attempt takes nothing from the attempt that holds the outputs now.
    await store.end(first.attemptId, { status: 'failed', producedOutputs: false });
    expect(await upstream.claimOutputs(first)).toBe(false);
    expect((await api.deps.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).winningAttempt).toBe(next.attemptId);
  });

  it('keeps the outputs with the attempt that produced them', async () => {
    const jobId = await routedJob();
    const upstream = createGenerationStore(api.deps.prisma);
    const store = createAttemptStore(api.deps.prisma);
    const winner = { jobId, attemptId: `${jobId}.1` };
    await upstream.beginAttempt(winner, 1, 'pixelforge', 'first', 'provider.pixelforge');
    expect(await upstream.claimOutputs(winner)).toBe(true);
    await store.end(winner.attemptId, { status: 'succeeded', producedOutputs: true });
    expect(await upstream.claimOutputs({ jobId, attemptId: `${jobId}.2` })).toBe(false);
  });

  it('finds nothing sent for an attempt whose start never ran (no row): nothing to cancel', async () => {
    const jobId = await routedJob();
    const state = await createGenerationStore(api.deps.prisma).state({ jobId, attemptId: `${jobId}.2` });
    expect(state).toEqual({ upstreamId: null, upstreamSubmittedAt: null, startedAt: null });
  });

  it("keeps the first position an upstream's queue gave the attempt, and writes the start a queued snapshot estimates", async () => {
    const jobId = await routedJob();
    const prisma = api.deps.prisma;
    await prisma.jobAttempt.create({ data: { id: `${jobId}.1`, jobId, number: 1, providerId: 'fal' } });
    const generations = createGenerationStore(prisma);
    const key = { jobId, attemptId: `${jobId}.1` };
    const first = await generations.noteQueuePosition(key, 7);
    expect(first.first.position).toBe(7);
    expect(Math.abs(first.first.seenAtMs - first.nowMs)).toBeLessThan(1000);
    const later = await generations.noteQueuePosition(key, 3);
    expect(later.first).toEqual(first.first);
    expect(later.nowMs).toBeGreaterThanOrEqual(first.nowMs);

    const start = new Date(Date.now() + 30_000);
    const completion = new Date(Date.now() + 40_000);
    await generations.recordSnapshot(key, { progress: 0, estimatedCompletionTime: completion, estimatedStartTime: start, stage: 'IN_QUEUE', queuePosition: 3 });
    expect(await prisma.job.findUniqueOrThrow({ where: { id: jobId } })).toMatchObject({ estimatedStartTime: start, estimatedCompletionTime: completion, upstreamQueuePosition: 3 });
    // A snapshot without a start leaves the one written.
    await generations.recordSnapshot(key, { running: true, progress: 10, estimatedCompletionTime: completion, stage: 'running', queuePosition: null });
    expect((await prisma.job.findUniqueOrThrow({ where: { id: jobId } })).estimatedStartTime).toEqual(start);
  });
});
