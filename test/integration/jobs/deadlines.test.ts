/**
 * Deadlines on the real stack, with the built-in provider on one slot (jobs of about 3 s): a job still waiting at its
 * deadline is cancelled within seconds after it, never before, with DEADLINE_EXCEEDED and a full refund; one still
 * running is stopped at the provider and refunded; a submit that asks to be refused rather than admitted late is
 * refused with its estimate and charged nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, waitForFinal } from '../../support/api';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';
import { TEXT_TO_IMAGE } from './helpers';

/** The built-in provider's nominal 30 s × this: each job runs about 3 s. */
const TIME_SCALE = 0.1;
/** How long after its deadline a job may still be waiting to be ended. */
const DEADLINE_SLACK_MS = 5_000;

describe('deadlines', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ tuning: { providers: { timeScale: TIME_SCALE } } });
    await stack.workers.startProviderWorker('pixelforge', { maxConcurrentJobs: 1 });
  }, 120_000);
  afterAll(async () => stack?.stop());

  const submit = (apiKey: string, body: Record<string, unknown>) =>
    post(`${stack.url}/v1/jobs/submit`, apiKey, { model: TEXT_TO_IMAGE, input: { prompt: 'on time' }, ...body });
  const balanceOf = async (accountId: string) => (await stack.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).balanceMicroCents;
  const ledgerOf = (jobId: string) => stack.prisma.ledgerEntry.findMany({ where: { jobId }, orderBy: { id: 'asc' } });

  it('refuses a deadline that is not in the future, both forms at once, and a policy without a deadline', async () => {
    const account = await createTestAccount(stack.prisma);
    const past = await submit(account.apiKey, { deadline: new Date(Date.now() - 1000).toISOString() });
    expect(past.status).toBe(400);
    expect(past.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'deadline' }] });
    const both = await submit(account.apiKey, { deadline: new Date(Date.now() + 60_000).toISOString(), cancelAfter: 60 });
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('VALIDATION_ERROR');
    const policyAlone = await submit(account.apiKey, { deadlinePolicy: 'reject_if_late' });
    expect(policyAlone.status).toBe(400);
    const notAnInstant = await submit(account.apiKey, { deadline: 'tomorrow' });
    expect(notAnInstant.status).toBe(400);
    expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(0);
  }, 30_000);

  it('cancels a job still waiting at its deadline with DEADLINE_EXCEEDED, refunded in full, never before the deadline', async () => {
    const account = await createTestAccount(stack.prisma, { maxConcurrentJobs: 10 });
    const before = await balanceOf(account.accountId);
    // The only slot is taken for about 3 s: the job with a 1 s deadline cannot start in time.
    const ahead = await submit(account.apiKey, {});
    expect(ahead.status).toBe(201);
    const late = await submit(account.apiKey, { cancelAfter: 1 });
    expect(late.status, JSON.stringify(late.body)).toBe(201);
    const created = await get(`${stack.url}/v1/jobs/${late.body.jobId}`, account.apiKey);
    const deadline = Date.parse(created.body.deadline);
    expect(deadline).toBeGreaterThan(Date.parse(created.body.createdAt));

    const ended = await waitForFinal(stack, account.apiKey, late.body.jobId, 30_000);
    expect(ended).toMatchObject({ status: 'cancelled', error: { code: 'DEADLINE_EXCEEDED' }, refundedMicroCents: late.body.costMicroCents, startedAt: null });
    expect(Date.parse(ended.completedAt)).toBeGreaterThanOrEqual(deadline);
    expect(Date.parse(ended.completedAt)).toBeLessThanOrEqual(deadline + DEADLINE_SLACK_MS);
    const entries = await ledgerOf(late.body.jobId);
    expect(entries.map((e) => [e.kind, e.amountMicroCents])).toEqual([
      ['charge', -BigInt(late.body.costMicroCents)],
      ['refund', BigInt(late.body.costMicroCents)],
    ]);
    const events = await get(`${stack.url}/v1/jobs/${late.body.jobId}/events`, account.apiKey);
    expect(events.body.events.at(-1)).toMatchObject({ type: 'job.cancelled', error: { code: 'DEADLINE_EXCEEDED' }, refundedMicroCents: late.body.costMicroCents });

    expect(await waitForFinal(stack, account.apiKey, ahead.body.jobId, 30_000)).toMatchObject({ status: 'completed' });
    expect(await balanceOf(account.accountId)).toBe(before - BigInt(ahead.body.costMicroCents));
  }, 60_000);

  it('stops a job still running at its deadline at the built-in provider, refunded in full, with no outputs', async () => {
    const account = await createTestAccount(stack.prisma);
    const before = await balanceOf(account.accountId);
    // The slot is free: the job starts at once and runs about 3 s, past its 1.5 s deadline.
    const deadline = new Date(Date.now() + 1500);
    const job = await submit(account.apiKey, { deadline: deadline.toISOString() });
    expect(job.status, JSON.stringify(job.body)).toBe(201);
    const ended = await waitForFinal(stack, account.apiKey, job.body.jobId, 30_000);
    expect(ended).toMatchObject({ status: 'cancelled', error: { code: 'DEADLINE_EXCEEDED' }, refundedMicroCents: job.body.costMicroCents, outputs: [] });
    expect(ended.startedAt).not.toBeNull();
    expect(Date.parse(ended.completedAt)).toBeGreaterThanOrEqual(deadline.getTime());
    expect(Date.parse(ended.completedAt)).toBeLessThanOrEqual(deadline.getTime() + DEADLINE_SLACK_MS);
    expect(ended.attempts).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    expect(await balanceOf(account.accountId)).toBe(before);
  }, 60_000);

  it('refuses at once, charging nothing, a job whose 90th percentile is past its deadline when it asks for that', async () => {
    const account = await createTestAccount(stack.prisma, { maxConcurrentJobs: 10 });
    // Three jobs of about 3 s ahead on the one slot: nothing submitted now is done within 2 s.
    const ahead = await Promise.all([0, 1, 2].map(() => submit(account.apiKey, {})));
    expect(ahead.map((r) => r.status)).toEqual([201, 201, 201]);
    const before = await balanceOf(account.accountId);
    const jobs = await stack.prisma.job.count({ where: { accountId: account.accountId } });

    const refused = await submit(account.apiKey, { cancelAfter: 2, deadlinePolicy: 'reject_if_late' });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('DEADLINE_UNREACHABLE');
    const { details } = refused.body.error;
    expect(Date.parse(details.estimatedCompletionTimeP90)).toBeGreaterThan(Date.parse(details.deadline));
    expect(Date.parse(details.estimatedCompletionTime)).toBeLessThanOrEqual(Date.parse(details.estimatedCompletionTimeP90));
    expect(details.placeInLine).toBeGreaterThanOrEqual(1);
    expect(await balanceOf(account.accountId)).toBe(before);
    expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(jobs);

    // The same deadline under the default policy is admitted, and ends at it.
    const admitted = await submit(account.apiKey, { cancelAfter: 2 });
    expect(admitted.status).toBe(201);
    expect(await waitForFinal(stack, account.apiKey, admitted.body.jobId, 30_000)).toMatchObject({ status: 'cancelled', error: { code: 'DEADLINE_EXCEEDED' } });
    for (const job of ahead) await waitForFinal(stack, account.apiKey, job.body.jobId, 30_000);
  }, 90_000);
});
