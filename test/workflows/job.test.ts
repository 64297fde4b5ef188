import { describe, expect, it } from 'vitest';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { cancelUpdate, jobStartedSignal } from '../../src/contracts/workflows/job';
import type { GenerationProgress, GenerationStart } from '../../src/shared/upstreams';
import { jobWorkflowId } from '../../src/contracts/workflows/job';
import { admit, deferred, fakeJobActivities, jobInput, statusAttribute, withWorkers, useJobHarness, type ProviderFake } from './jobHarness';

const harness = useJobHarness();
const client = () => harness().env.client;

describe('jobWorkflow', () => {
  it('admits, starts the generation on the provider queue and completes', async () => {
    const input = jobInput();
    const { calls, activities } = fakeJobActivities();
    const seen: GenerationStart[] = [];
    const provider: ProviderFake = {
      async startGeneration(args): Promise<GenerationProgress> {
        seen.push(args);
        return { outcome: 'completed', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 10 }] };
      },
    };
    const result = await withWorkers(harness(), input, activities, provider, async (taskQueue) => {
      const { admission, handle } = await admit(client(), input, taskQueue);
      expect(admission).toMatchObject({ jobId: input.jobId, status: 'pending', costMicroCents: 45_000 });
      return handle.result();
    });
    expect(result).toMatchObject({ status: 'completed', outputs: [{ key: `${input.jobId}/output-1.png` }] });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ jobId: input.jobId, capability: 'text-to-image', input: { prompt: 'a fox' } });
    expect(calls).toEqual(['admitJob', 'endAttempt:1:succeeded', 'completeJob']);
    expect(await statusAttribute(client(), input.jobId)).toBe('completed');
  }, 60_000);

  it("records the successful attempt's end with the completion, in one local activity after the generation", async () => {
    const input = jobInput();
    const completions: unknown[] = [];
    const { activities } = fakeJobActivities({
      async completeJob(args) {
        completions.push(args);
        return { deliverOutputs: false };
      },
    });
    const provider: ProviderFake = {
      startGeneration: async (args) => ({ outcome: 'completed', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 10 }] }),
    };
    const history = await withWorkers(harness(), input, activities, provider, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      await handle.result();
      return handle.fetchHistory();
    });
    expect(completions).toEqual([
      expect.objectContaining({
        jobId: input.jobId,
        endedAttempt: expect.objectContaining({ attemptId: `${input.jobId}.1`, status: 'succeeded', producedOutputs: true }),
      }),
    ]);
    // Admission, then the completion: no local activity of its own for the attempt's end.
    const markers = (history.events ?? []).filter((e) => e.markerRecordedEventAttributes);
    expect(markers).toHaveLength(2);
    const afterGeneration = (history.events ?? []).slice((history.events ?? []).findIndex((e) => e.activityTaskCompletedEventAttributes));
    expect(afterGeneration.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
  }, 60_000);

  it('answers a rejected admission through the update and ends without provider work', async () => {
    const input = jobInput();
    let providerCalled = false;
    const { calls, activities } = fakeJobActivities({
      async admitJob() {
        throw ApplicationFailure.create({ type: 'INSUFFICIENT_BALANCE', message: 'balance too low', nonRetryable: true });
      },
    });
    const provider: ProviderFake = {
      async startGeneration() {
        providerCalled = true;
        return { outcome: 'cancelled' };
      },
    };
    await withWorkers(harness(), input, activities, provider, async (taskQueue) => {
      const error = await admit(client(), input, taskQueue).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
      const cause = (error as WorkflowUpdateFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect((cause as ApplicationFailure).type).toBe('INSUFFICIENT_BALANCE');
      const result = await client().workflow.getHandle(jobWorkflowId(input.jobId)).result();
      expect(result).toMatchObject({ status: 'rejected', error: { code: 'INSUFFICIENT_BALANCE' } });
    });
    expect(providerCalled).toBe(false);
    expect(calls).toEqual([]);
    expect(await statusAttribute(client(), input.jobId)).toBe('rejected');
  }, 60_000);

  it('cancels a pending job that no provider worker has begun and refunds it', async () => {
    const input = jobInput();
    const { calls, activities } = fakeJobActivities();
    await withWorkers(harness(), input, activities, null, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      expect(await statusAttribute(client(), input.jobId)).toBe('pending');
      const cancelled = await handle.executeUpdate(cancelUpdate);
      expect(cancelled).toEqual({ jobId: input.jobId, status: 'cancelled', refundedMicroCents: 45_000 });
      expect(await handle.result()).toMatchObject({ status: 'cancelled', refundedMicroCents: 45_000 });
    });
    expect(calls).toEqual(['admitJob', 'cancelPendingJob', 'endAttempt:1:cancelled']);
    expect(await statusAttribute(client(), input.jobId)).toBe('cancelled');
  }, 60_000);

  it('cancels a job still pending at its deadline with DEADLINE_EXCEEDED, refunded in full, never before the deadline', async () => {
    const deadline = new Date(Date.now() + 1500);
    const input = jobInput({ deadline: deadline.toISOString() });
    const { calls, activities } = fakeJobActivities();
    const result = await withWorkers(harness(), input, activities, null, async (taskQueue) => (await admit(client(), input, taskQueue)).handle.result());
    expect(Date.now()).toBeGreaterThanOrEqual(deadline.getTime());
    expect(result).toMatchObject({ status: 'cancelled', refundedMicroCents: 45_000 });
    expect(calls).toEqual(['admitJob', 'cancelPendingJob:DEADLINE_EXCEEDED', 'endAttempt:1:cancelled']);
    expect(await statusAttribute(client(), input.jobId)).toBe('cancelled');
  }, 60_000);

  it('stops a job still running at its deadline at its provider, then ends it through the deadline bookkeeping', async () => {
    const input = jobInput({ deadline: new Date(Date.now() + 1500).toISOString() });
    const { calls, activities } = fakeJobActivities();
    const stopped: string[] = [];
    const provider: ProviderFake = {
      async startGeneration(args) {
        await client().workflow.getHandle(jobWorkflowId(args.jobId)).signal(jobStartedSignal, { startedAt: new Date().toISOString() });
        // Runs until its cancel arrives with a heartbeat's answer.
        for (;;) {
          Context.current().heartbeat();
          await Promise.race([Context.current().cancelled, new Promise((r) => setTimeout(r, 200))]);
        }
      },
      async cancelGeneration({ attemptId }) {
        stopped.push(attemptId);
      },
    };
    const result = await withWorkers(harness(), input, activities, provider, async (taskQueue) => (await admit(client(), input, taskQueue)).handle.result());
    expect(result).toMatchObject({ status: 'cancelled', refundedMicroCents: 45_000 });
    expect(stopped).toEqual([`${input.jobId}.1`]);
    expect(calls).toEqual(['admitJob', 'endAttempt:1:cancelled', 'stopJobAtDeadline']);
  }, 60_000);

  it('lets a job whose deadline bounds only its start (a batch item) run past it to completion', async () => {
    const deadline = new Date(Date.now() + 1000);
    const input = jobInput({ deadline: deadline.toISOString(), deadlineBoundsStartOnly: true });
    const { calls, activities } = fakeJobActivities();
    const stopped: string[] = [];
    const provider: ProviderFake = {
      async startGeneration(args) {
        await client().workflow.getHandle(jobWorkflowId(args.jobId)).signal(jobStartedSignal, { startedAt: new Date().toISOString() });
        // Still running well past the deadline.
        while (Date.now() < deadline.getTime() + 1500) {
          Context.current().heartbeat();
          await new Promise((r) => setTimeout(r, 200));
        }
        return { outcome: 'completed', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 10 }] };
      },
      async cancelGeneration({ attemptId }) {
        stopped.push(attemptId);
      },
    };
    const result = await withWorkers(harness(), input, activities, provider, async (taskQueue) => (await admit(client(), input, taskQueue)).handle.result());
    expect(result).toMatchObject({ status: 'completed' });
    expect(stopped).toEqual([]);
    expect(calls).toEqual(['admitJob', 'endAttempt:1:succeeded', 'completeJob']);
  }, 60_000);

  it('rejects cancel synchronously once the provider has started the job', async () => {
    const input = jobInput();
    const { calls, activities } = fakeJobActivities();
    const started = deferred();
    const release = deferred();
    const provider: ProviderFake = {
      async startGeneration(args) {
        await client().workflow.getHandle(jobWorkflowId(args.jobId)).signal(jobStartedSignal, { startedAt: new Date().toISOString() });
        started.resolve();
        await release.promise;
        return { outcome: 'completed', outputs: [] };
      },
    };
    await withWorkers(harness(), input, activities, provider, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      await started.promise;
      // The signal is processed in the next workflow task; wait until the status says so.
      for (let i = 0; i < 50 && (await statusAttribute(client(), input.jobId)) !== 'processing'; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const error = await handle.executeUpdate(cancelUpdate).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(((error as WorkflowUpdateFailedError).cause as ApplicationFailure).type).toBe('JOB_CANNOT_BE_CANCELLED');
      release.resolve();
      expect(await handle.result()).toMatchObject({ status: 'completed' });
    });
    expect(calls).toEqual(['admitJob', 'endAttempt:1:succeeded', 'completeJob']);
  }, 60_000);

  it('reports a cancel that lost the race in PostgreSQL and lets the job finish', async () => {
    const input = jobInput();
    const release = deferred();
    const { calls, activities } = fakeJobActivities({
      async cancelPendingJob() {
        throw ApplicationFailure.create({ type: 'JOB_CANNOT_BE_CANCELLED', message: 'Job is processing', nonRetryable: true });
      },
    });
    const provider: ProviderFake = {
      async startGeneration() {
        await release.promise;
        return { outcome: 'completed', outputs: [] };
      },
    };
    await withWorkers(harness(), input, activities, provider, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      const error = await handle.executeUpdate(cancelUpdate).catch((err: unknown) => err);
      expect(((error as WorkflowUpdateFailedError).cause as ApplicationFailure).type).toBe('JOB_CANNOT_BE_CANCELLED');
      release.resolve();
      expect(await handle.result()).toMatchObject({ status: 'completed' });
    });
    expect(calls).toEqual(['admitJob', 'endAttempt:1:succeeded', 'completeJob']);
  }, 60_000);

  it('ends cancelled with the refund PostgreSQL recorded when the cancel update failed after its commit', async () => {
    const input = jobInput();
    const cancelledInDatabase = deferred();
    const { calls, activities } = fakeJobActivities({
      // The cancel commits, then every attempt's answer is lost: the update fails, the row says cancelled.
      async cancelPendingJob() {
        calls.push('cancelPendingJob');
        cancelledInDatabase.resolve();
        throw new Error('connection lost after COMMIT');
      },
      async readJobOutcome() {
        calls.push('readJobOutcome');
        return { status: 'cancelled', refundedMicroCents: 45_000 };
      },
    });
    const provider: ProviderFake = {
      async startGeneration() {
        await cancelledInDatabase.promise;
        return { outcome: 'cancelled' };
      },
    };
    await withWorkers(harness(), input, activities, provider, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      const error = await handle.executeUpdate(cancelUpdate).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(await handle.result()).toMatchObject({ status: 'cancelled', refundedMicroCents: 45_000 });
    });
    expect(calls).toContain('readJobOutcome');
    expect(await statusAttribute(client(), input.jobId)).toBe('cancelled');
  }, 90_000);

  it('fails and refunds the job on a permanent provider error', async () => {
    const input = jobInput();
    const { calls, activities } = fakeJobActivities();
    let attempts = 0;
    const provider: ProviderFake = {
      async startGeneration() {
        attempts++;
        throw ApplicationFailure.create({ type: 'CONTENT_POLICY_VIOLATION', message: 'refused', nonRetryable: true });
      },
    };
    const result = await withWorkers(harness(), input, activities, provider, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      return handle.result();
    });
    expect(attempts).toBe(1);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'CONTENT_POLICY_VIOLATION', message: 'refused' }, refundedMicroCents: 45_000 });
    expect(calls).toEqual(['admitJob', 'endAttempt:1:failed:CONTENT_POLICY_VIOLATION', 'failJob:CONTENT_POLICY_VIOLATION']);
    expect(await statusAttribute(client(), input.jobId)).toBe('failed');
  }, 60_000);

  it('retries a transient provider error and then completes', async () => {
    const input = jobInput();
    const { calls, activities } = fakeJobActivities();
    let attempts = 0;
    const provider: ProviderFake = {
      async startGeneration() {
        attempts++;
        if (attempts === 1) {
          throw ApplicationFailure.create({ type: 'PROVIDER_UNAVAILABLE', message: 'try later', nextRetryDelay: '100 milliseconds' });
        }
        return { outcome: 'completed', outputs: [] };
      },
    };
    const result = await withWorkers(harness(), input, activities, provider, async (taskQueue) => (await admit(client(), input, taskQueue)).handle.result());
    expect(attempts).toBe(2);
    expect(result.status).toBe('completed');
    expect(calls).toEqual(['admitJob', 'endAttempt:1:succeeded', 'completeJob']);
  }, 60_000);
});
