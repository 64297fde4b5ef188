/**
 * Fair share between accounts on a busy provider queue (2 slots, jobs of about 0.3 s), against the test stack's
 * Temporal dev server with fairness on: an account that submits a few jobs behind another's backlog gets its jobs
 * started interleaved with that backlog, not after it (and, with fairness keys off, after it, which shows the check
 * can fail); a business account (weight 3) gets about three starts to a standard account's one while both wait.
 * Orders and shares only: the benchmark (`npm run bench fairness`) measures the times.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';
import { post } from '../../support/api';
import { lateTenantScenario, SLOTS, startOrder, submitJobs } from '../../support/fairShare';
import { TEXT_TO_IMAGE } from './helpers';

describe('fair share between accounts', () => {
  let stack: TestStack | undefined;
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  it("starts a second account's few jobs interleaved with the first's backlog, where without fairness keys they wait behind it", async () => {
    const fair = await lateTenantScenario({});
    // Both keys of weight 1 take turns: B's 5 jobs go within about 10 starts. Checked only with a backlog that
    // tells the two apart (a machine too slow to submit 40 jobs before the provider drains them would not).
    expect(fair.aBacklogAtB).toBeGreaterThanOrEqual(20);
    expect(fair.aBeforeBsLast).toBeLessThanOrEqual(10);
    expect(fair.aAfterBsLast).toBeGreaterThanOrEqual(fair.aBacklogAtB - 15);

    const fifo = await lateTenantScenario({}, { jobs: { fairness: false } });
    expect(fifo.aBacklogAtB).toBeGreaterThanOrEqual(20);
    expect(fifo.aBeforeBsLast).toBeGreaterThan(fifo.aBacklogAtB - 5);
    expect(fifo.aAfterBsLast).toBeLessThanOrEqual(2);
  }, 300_000);

  it('gives a business account (weight 3) about three starts to a standard account’s one while both have jobs waiting', async () => {
    stack = await startTestStack();
    const business = await createTestAccount(stack.prisma, { plan: 'business', maxConcurrentJobs: 100 });
    const standard = await createTestAccount(stack.prisma, { plan: 'standard', maxConcurrentJobs: 100 });
    const businessJobs = await submitJobs(stack, business, 45);
    const standardJobs = await submitJobs(stack, standard, 15);
    await stack.workers.startProviderWorker('pixelforge', { maxConcurrentJobs: SLOTS });
    const order = await startOrder(stack, { business: businessJobs, standard: standardJobs });

    // The first 40 starts, while both still wait (at 3:1, 30 and 10). First in, first out would give 40 and 0, and
    // equal weights 20 and 20.
    const first = order.slice(0, 40);
    const businessStarts = first.filter((s) => s.tenant === 'business').length;
    const standardStarts = first.length - businessStarts;
    expect(standardStarts).toBeGreaterThan(0);
    const ratio = businessStarts / standardStarts;
    expect(ratio, `${businessStarts} business and ${standardStarts} standard starts`).toBeGreaterThanOrEqual(2);
    expect(ratio, `${businessStarts} business and ${standardStarts} standard starts`).toBeLessThanOrEqual(4.5);
  }, 300_000);

  it("refuses a priority above the plan's with VALIDATION_ERROR and takes a lower one", async () => {
    stack = await startTestStack({ providers: ['pixelforge'] });
    const account = await createTestAccount(stack.prisma, { plan: 'standard' });
    const refused = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: 'urgent' }, priority: 'high' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'priority', planPriority: 'normal', allowed: ['low', 'normal'] }],
    });
    const unknown = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: 'urgent' }, priority: 'asap' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'priority' }] });

    const lower = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: 'batch' }, priority: 'low' });
    expect(lower.status).toBe(201);
    await eventually(async () => {
      const job = await stack!.prisma.job.findUnique({ where: { id: lower.body.jobId } });
      return job?.status === 'completed' ? job : undefined;
    }, 60_000);
  }, 120_000);
});
