/** What the job workflow tests share: inputs, fake bookkeeping activities, admission and workers. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { GenerationActivities } from '../../activities/generation';
import type { JobActivities } from '../../activities/jobs';
import { JOB_SEARCH_ATTRIBUTES, admitUpdate, jobIdentitySearchAttributes, type JobWorkflowInput, type RoutePlan } from '../../src/contracts/workflows/job';
import { jobWorkflowId } from '../../src/contracts/workflows/job';
import { jobWorkflow } from '../../workflows';
import { sharedWorkflowBundle } from './sharedBundle';
import { createJobTestEnv, quietTemporalLogs } from './temporalEnv';

export interface JobHarness {
  env: TestWorkflowEnvironment;
  bundle: WorkflowBundleWithSourceMap;
}

/** Starts a local Temporal test server and the workflow bundle for the calling test file; tears them down after it. */
export function useJobHarness(): () => JobHarness {
  let harness: JobHarness | undefined;
  beforeAll(async () => {
    quietTemporalLogs();
    const [env, bundle] = await Promise.all([createJobTestEnv(), sharedWorkflowBundle()]);
    harness = { env, bundle };
  }, 120_000);
  afterAll(async () => {
    await harness?.env.teardown();
  });
  return () => harness!;
}

/** A job on one route (a provider of its own, on its own task queue), with `route` changed as given. */
export function jobInput(overrides: Partial<JobWorkflowInput> = {}, route: Partial<RoutePlan> = {}): JobWorkflowInput {
  const jobId = randomUUID();
  return {
    jobId,
    accountId: `acct-${jobId.slice(0, 8)}`,
    apiKeyId: null,
    requestId: 'req-1',
    modelSlug: 'acme/pro/text-to-image',
    modelId: 'acme-pro',
    versionId: 'v1',
    routes: [{ providerId: `prov-${jobId.slice(0, 8)}`, taskQueue: `provider.prov-${jobId.slice(0, 8)}`, expectedProcessingSeconds: 3, ...route }],
    capability: 'text-to-image',
    input: { prompt: 'a fox' },
    webhookUrl: null,
    costMicroCents: 45_000,
    admitBefore: new Date(Date.now() + 60_000).toISOString(),
    ...overrides,
  };
}

/** Records calls; each activity's behaviour can be replaced per test. */
export function fakeJobActivities(overrides: Partial<JobActivities> = {}) {
  const calls: string[] = [];
  const activities: JobActivities = {
    async admitJob(input) {
      calls.push('admitJob');
      return {
        jobId: input.jobId,
        status: 'pending',
        costMicroCents: input.costMicroCents,
        estimatedCompletionTime: new Date(Date.now() + 3000).toISOString(),
        createdAt: new Date().toISOString(),
      };
    },
    async cancelPendingJob({ reason }) {
      calls.push(reason ? `cancelPendingJob:${reason.code}` : 'cancelPendingJob');
      return { refundedMicroCents: 45_000 };
    },
    async stopJobAtDeadline() {
      calls.push('stopJobAtDeadline');
      return { status: 'cancelled', refundedMicroCents: 45_000 };
    },
    async completeJob({ endedAttempt }) {
      // The attempt's end recorded with the completion reads as it would on its own, before it.
      if (endedAttempt) calls.push(`endAttempt:${endedAttempt.attemptId.split('.').at(-1)}:${endedAttempt.status}`);
      calls.push('completeJob');
      return { deliverOutputs: false };
    },
    async failJob({ error }) {
      calls.push(`failJob:${error.code}`);
      return { refundedMicroCents: 45_000 };
    },
    async readJobOutcome() {
      calls.push('readJobOutcome');
      return { status: 'pending', refundedMicroCents: 0 };
    },
    async planRoutes({ routes }) {
      calls.push('planRoutes');
      return { order: routes.map((_, i) => i), unhealthy: [] };
    },
    async endAttempt({ attemptId, status, error }) {
      calls.push(`endAttempt:${attemptId.split('.').at(-1)}:${status}${error ? `:${error.code}` : ''}`);
    },
    ...overrides,
  };
  return { calls, activities };
}

export async function admit(client: Client, input: JobWorkflowInput, taskQueue: string) {
  const startWorkflowOperation = new WithStartWorkflowOperation(jobWorkflow, {
    workflowId: jobWorkflowId(input.jobId),
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'FAIL',
    typedSearchAttributes: jobIdentitySearchAttributes(input),
  });
  const admission = await client.workflow.executeUpdateWithStart(admitUpdate, { startWorkflowOperation });
  return { admission, handle: await startWorkflowOperation.workflowHandle() };
}

/** Fake generation activities: `startGeneration` at least; the others default to doing nothing. */
export type ProviderFake = Pick<GenerationActivities, 'startGeneration'> & Partial<GenerationActivities>;

/** Runs the workflow worker (and a provider worker when given) while `fn` runs. */
export async function withWorkers<T>(
  harness: JobHarness,
  input: JobWorkflowInput,
  jobActivities: JobActivities,
  provider: object | null,
  fn: (taskQueue: string) => Promise<T>,
): Promise<T> {
  return withProviderWorkers(harness, jobActivities, provider ? { [input.routes[0].taskQueue]: provider } : {}, fn);
}

/** Runs the workflow worker and one provider worker per task queue given while `fn` runs. */
export async function withProviderWorkers<T>(
  { env, bundle }: JobHarness,
  jobActivities: JobActivities,
  providers: Record<string, object>,
  fn: (taskQueue: string) => Promise<T>,
): Promise<T> {
  const taskQueue = `jobs-${randomUUID()}`;
  const workflowWorker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities: jobActivities,
  });
  const workers = [workflowWorker];
  for (const [providerQueue, provider] of Object.entries(providers)) {
    workers.push(
      await Worker.create({
        connection: env.nativeConnection,
        taskQueue: providerQueue,
        activities: { cancelGeneration: async () => undefined, ...provider },
      }),
    );
  }
  const [first, ...rest] = workers;
  const runAll = (i: number): Promise<T> =>
    i === rest.length ? fn(taskQueue) : rest[i].runUntil(() => runAll(i + 1));
  return first.runUntil(() => runAll(0));
}

export async function statusAttribute(client: Client, jobId: string): Promise<string | undefined> {
  const description = await client.workflow.getHandle(jobWorkflowId(jobId)).describe();
  return description.typedSearchAttributes.get(JOB_SEARCH_ATTRIBUTES.JobStatus);
}

export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
