/** A job's attempts in PostgreSQL: how each ended, recorded once, also for an attempt whose start never ran. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttemptStore } from '../../../src/jobs/attempts';
import { createUpstreamJobStore } from '../../../src/jobs/upstreamStore';
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

  it('finds nothing sent for an attempt whose start never ran (no row): nothing to cancel', async () => {
    const jobId = await routedJob();
    const state = await createUpstreamJobStore(api.deps.prisma).state({ jobId, attemptId: `${jobId}.2` });
    expect(state).toEqual({ upstreamId: null, upstreamSubmittedAt: null, startedAt: null });
  });
});
