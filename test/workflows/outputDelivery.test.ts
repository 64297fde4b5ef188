/**
 * The delivery of a job's outputs to the customer's bucket as the job workflow starts it (an abandoned child, only
 * when completion says so) and as it retries: attempts on a growing backoff until one succeeds or the retry period
 * ends, then `job.delivered` when the client asked for it.
 */
import { describe, expect, it } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { OutputDeliveryActivities } from '../../activities/outputDelivery';
import type { WebhookActivities } from '../../activities/webhooks';
import { outputDeliveryWorkflowContract, outputDeliveryWorkflowId } from '../../src/contracts/workflows/outputDelivery';
import { webhookWorkflowId } from '../../src/contracts/workflows/webhookDelivery';
import type { OutputDeliveryAttemptInput, PreparedOutputDelivery } from '../../src/shared/outputDelivery';
import { startWorkflow } from '../../src/temporal/workflows';
import { admit, deferred, fakeJobActivities, jobInput, useJobHarness, withProviderWorkers, type ProviderFake } from './jobHarness';

const harness = useJobHarness();
const client = () => harness().env.client;

const completes: ProviderFake = {
  async startGeneration(args) {
    return { outcome: 'completed', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 10 }] };
  },
};

function plan(overrides: Partial<PreparedOutputDelivery> = {}): PreparedOutputDelivery {
  return {
    firstAttempt: 1,
    giveUpAt: new Date(Date.now() + 60_000).toISOString(),
    firstBackoffSeconds: 0.2,
    maxBackoffSeconds: 0.4,
    attemptTimeoutSeconds: 30,
    notify: false,
    ...overrides,
  };
}

/** Webhook activities that record which events were started and deliver nothing. */
function webhookFakes(started: string[]): WebhookActivities {
  return {
    async prepareWebhookEvent({ eventType }) {
      started.push(eventType);
      return null;
    },
    async attemptWebhookDelivery() {
      throw new Error('not reached');
    },
  };
}

describe('output delivery', () => {
  it('starts when completion says the account has a destination, and the job ends without waiting for it', async () => {
    const input = jobInput();
    const { activities } = fakeJobActivities({ completeJob: async () => ({ deliverOutputs: true }) });
    const copied = deferred();
    const attempts: OutputDeliveryAttemptInput[] = [];
    const delivery: OutputDeliveryActivities = {
      prepareOutputDelivery: async () => plan(),
      async attemptOutputDelivery(attempt) {
        attempts.push(attempt);
        await copied.promise;
        return { outcome: 'delivered' };
      },
    };
    const providers = { [input.routes[0].taskQueue]: completes };
    await withProviderWorkers(harness(), { ...activities, ...delivery } as never, providers, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      // The job's result while its delivery's first attempt is still copying.
      expect(await handle.result()).toMatchObject({ status: 'completed' });
      const deliveryHandle = client().workflow.getHandle(outputDeliveryWorkflowId(input.jobId));
      const described = await deliveryHandle.describe();
      expect(described.status.name).toBe('RUNNING');
      expect(described.parentExecution?.workflowId).toBe(handle.workflowId);
      copied.resolve();
      expect(await deliveryHandle.result()).toEqual({ status: 'delivered', attempts: 1 });
    });
    expect(attempts).toEqual([{ jobId: input.jobId, attempt: 1, final: false }]);
  }, 60_000);

  it('adds no workflow for a job whose account has no destination', async () => {
    const input = jobInput();
    const { activities } = fakeJobActivities();
    await withProviderWorkers(harness(), activities, { [input.routes[0].taskQueue]: completes }, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      expect(await handle.result()).toMatchObject({ status: 'completed' });
    });
    await expect(client().workflow.getHandle(outputDeliveryWorkflowId(input.jobId)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  }, 60_000);

  it('tries again on a growing backoff, gives up with the last attempt flagged final, then sends job.delivered', async () => {
    const jobId = `job_${Date.now()}`;
    const attempts: Array<OutputDeliveryAttemptInput & { at: number }> = [];
    const webhooks: string[] = [];
    const delivery: OutputDeliveryActivities = {
      prepareOutputDelivery: async () => plan({ giveUpAt: new Date(Date.now() + 4000).toISOString(), notify: true }),
      async attemptOutputDelivery(attempt) {
        attempts.push({ ...attempt, at: Date.now() });
        return attempt.final ? { outcome: 'failed', reason: 'connect ECONNREFUSED' } : { outcome: 'retry', reason: 'connect ECONNREFUSED' };
      },
    };
    const result = await withProviderWorkers(harness(), { ...delivery, ...webhookFakes(webhooks) } as never, {}, async (taskQueue) => {
      const handle = await startWorkflow(client(), outputDeliveryWorkflowContract, { workflowId: outputDeliveryWorkflowId(jobId), taskQueue, args: [{ jobId }] });
      const settled = await handle.result();
      await client().workflow.getHandle(webhookWorkflowId(jobId, 'job.delivered')).result();
      return settled;
    });
    expect(result.status).toBe('failed');
    expect(result.attempts).toBeGreaterThanOrEqual(3);
    expect(result.attempts).toBe(attempts.length);
    expect(attempts.map((a) => a.attempt)).toEqual(attempts.map((_, i) => i + 1));
    expect(attempts.map((a) => a.final)).toEqual([...attempts.slice(1).map(() => false), true]);
    // 0.2 s, then 0.4 s (the maximum) between attempts.
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(190);
    expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(390);
    expect(webhooks).toEqual(['job.delivered']);
  }, 60_000);

  it('ends at once when there is no pending delivery, and continues the count of an earlier run', async () => {
    const skipped = `job_skip_${Date.now()}`;
    const resumed = `job_resume_${Date.now()}`;
    const attempts: OutputDeliveryAttemptInput[] = [];
    const delivery: OutputDeliveryActivities = {
      prepareOutputDelivery: async ({ jobId }) => (jobId === skipped ? null : plan({ firstAttempt: 7 })),
      async attemptOutputDelivery(attempt) {
        attempts.push(attempt);
        return { outcome: 'delivered' };
      },
    };
    const webhooks: string[] = [];
    await withProviderWorkers(harness(), { ...delivery, ...webhookFakes(webhooks) } as never, {}, async (taskQueue) => {
      const run = (jobId: string) =>
        startWorkflow(client(), outputDeliveryWorkflowContract, { workflowId: outputDeliveryWorkflowId(jobId), taskQueue, args: [{ jobId }] }).then((h) => h.result());
      expect(await run(skipped)).toEqual({ status: 'skipped', attempts: 0 });
      expect(await run(resumed)).toEqual({ status: 'delivered', attempts: 1 });
    });
    expect(attempts).toEqual([{ jobId: resumed, attempt: 7, final: false }]);
    expect(webhooks).toEqual([]);
  }, 60_000);

  it('waits as long as a deferred attempt says, without using an attempt', async () => {
    const jobId = `job_deferred_${Date.now()}`;
    const attempts: Array<OutputDeliveryAttemptInput & { at: number }> = [];
    const delivery: OutputDeliveryActivities = {
      prepareOutputDelivery: async () => plan({ firstBackoffSeconds: 0.1, maxBackoffSeconds: 0.1 }),
      async attemptOutputDelivery(attempt) {
        attempts.push({ ...attempt, at: Date.now() });
        return attempts.length === 1 ? { outcome: 'deferred', reason: 'the destination backs off', waitSeconds: 1.5 } : { outcome: 'delivered' };
      },
    };
    const result = await withProviderWorkers(harness(), { ...delivery, ...webhookFakes([]) } as never, {}, async (taskQueue) => {
      const handle = await startWorkflow(client(), outputDeliveryWorkflowContract, { workflowId: outputDeliveryWorkflowId(jobId), taskQueue, args: [{ jobId }] });
      return handle.result();
    });
    expect(result).toEqual({ status: 'delivered', attempts: 1 });
    expect(attempts.map((a) => a.attempt)).toEqual([1, 1]);
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(1400);
  }, 60_000);
});
