/** The submit use case over a stand-in store, workflow admission and clock. */
import type { Account, ApiKey } from '@prisma/client';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ResolvedModel } from '../../../src/catalog/versionResolver';
import { DEFAULT_ROUTING } from '../../../src/catalog/catalogFiles';
import { loadConfig } from '../../../src/config';
import type { AdmissionResult, JobWorkflowInput } from '../../../src/contracts/workflows/job';
import { admissionGateFor } from '../../../src/jobs/admissionGate';
import { requestHash, type Idempotency, type IdempotencyStart, type StoredResponse } from '../../../src/jobs/idempotency';
import { DomainError } from '../../../src/shared/errors';
import { submitJob, type SubmitDeps, type SubmitRequest } from '../../../src/jobs/submit';
import type { AdmitJobWorkflow, SubmitStore } from '../../../src/jobs/submitStore';
import type { JobScheduling } from '../../../src/jobs/scheduling';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const config = loadConfig({ NODE_ENV: 'test' });

const caller = {
  account: { id: 'acc_a', discountPercent: 10, plan: 'standard' } as Account,
  apiKey: { id: 'key_a' } as ApiKey,
};

const model: ResolvedModel = {
  model: {
    id: 'mdl_1',
    slug: 'acme/painter',
    name: 'Painter',
    providerId: 'acme',
    capabilityId: 'text-to-image',
    categoryId: 'image',
    visibility: 'public',
    segments: [],
  },
  version: {
    versionId: 'v2',
    status: 'active',
    inputSchema: {
      type: 'object',
      required: ['prompt'],
      properties: { prompt: { type: 'string' }, num_images: { type: 'integer', minimum: 1, default: 1 } },
    },
    outputSchema: {},
    pricing: { baseMicroCents: 50_000, unit: 'per_image', unitsField: 'num_images' },
    requestsPerMinute: 60,
    requestsPerDay: 1000,
    processingSeconds: 12,
  },
  provider: { id: 'acme', isActive: true, adapter: 'http' },
  routes: [{ providerId: 'acme', adapter: 'http', available: true, upstream: null, listPrice: null }],
  routing: DEFAULT_ROUTING,
};

function admission(jobId: string, costMicroCents: number, estimatedCompletionTime = '2030-01-01T00:00:14.000Z'): AdmissionResult {
  return { jobId, status: 'pending', costMicroCents, estimatedCompletionTime, createdAt: new Date(NOW).toISOString() };
}

const request: SubmitRequest = { model: 'acme/painter', input: { prompt: 'a lighthouse', num_images: 2 } };

/** What the fake store saw and holds. */
interface Recorded {
  counted: string[];
  takenBack: string[];
  voided: string[];
  admitted: JobWorkflowInput[];
  deadlines: number[];
  scheduling: JobScheduling[];
}

/** A claim left by a request that died holding the key for `jobId`. */
type LeaveStale = (accountId: string, key: string, hash: string, jobId: string) => void;

/** Idempotency records in memory, with the semantics of the PostgreSQL one for a single process. */
function memoryIdempotency(): Idempotency & { leaveStale: LeaveStale } {
  const records = new Map<string, { hash: string; jobId: string | null; response: StoredResponse | null; stale: boolean }>();
  const at = (accountId: string, key: string) => `${accountId}\u0000${key}`;
  return {
    async begin(accountId, key, hash, jobId): Promise<IdempotencyStart> {
      const record = records.get(at(accountId, key));
      if (!record) {
        records.set(at(accountId, key), { hash, jobId, response: null, stale: false });
        return { kind: 'new' };
      }
      if (record.hash !== hash) throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'different body');
      if (record.response) return { kind: 'replay', response: record.response };
      if (record.stale) return { kind: 'stale', jobId: record.jobId };
      throw new DomainError('IDEMPOTENCY_KEY_IN_PROGRESS', 'still running');
    },
    async complete(accountId, key, jobId, response) {
      const record = records.get(at(accountId, key));
      if (record?.jobId === jobId && !record.response) record.response = response;
    },
    async release(accountId, key, jobId) {
      const record = records.get(at(accountId, key));
      if (record?.jobId === jobId && !record.response) records.delete(at(accountId, key));
    },
    async restart(accountId, key, staleJobId, jobId) {
      const record = records.get(at(accountId, key));
      if (!record || record.jobId !== staleJobId || record.response) return false;
      Object.assign(record, { jobId, stale: false });
      return true;
    },
    leaveStale(accountId, key, hash, jobId) {
      records.set(at(accountId, key), { hash, jobId, response: null, stale: true });
    },
  };
}

function fakeDeps(options: {
  admit?: AdmitJobWorkflow;
  /** Jobs the store knows as admitted (charged). */
  admittedJobs?: Record<string, AdmissionResult>;
  fileProblems?: Array<{ path: string; message: string }>;
  rateLimited?: boolean;
  resolved?: ResolvedModel;
  /** The workflow admits (charges) the job, but its answer never reaches the API. */
  answerLost?: boolean;
  estimator?: SubmitDeps['estimator'];
} = {}) {
  const recorded: Recorded = { counted: [], takenBack: [], voided: [], admitted: [], deadlines: [], scheduling: [] };
  const admittedJobs = { ...options.admittedJobs };
  const idempotency = memoryIdempotency();
  const store: SubmitStore = {
    resolveModel: async (_caller, slug) => {
      if (slug !== model.model.slug) throw new DomainError('MODEL_NOT_FOUND', `Model ${slug} does not exist or is unavailable`);
      return options.resolved ?? model;
    },
    fileProblems: async () => options.fileProblems ?? [],
    countRequest: async (_accountId, scope) => {
      if (options.rateLimited) throw new DomainError('RATE_LIMIT_EXCEEDED', 'Too many requests', undefined, { retryAfterSeconds: 30 });
      recorded.counted.push(scope);
      return { takeBack: async () => void recorded.takenBack.push(scope) };
    },
    idempotency: () => idempotency,
    findAdmission: async (_accountId, jobId) => admittedJobs[jobId] ?? null,
    voidAdmission: async (_accountId, jobId) => {
      recorded.voided.push(jobId);
      return admittedJobs[jobId] ?? null;
    },
  };
  const admit: AdmitJobWorkflow =
    options.admit ??
    (async (input) => admission(input.jobId, input.costMicroCents));
  const deps: SubmitDeps = {
    config,
    store,
    admitWorkflow: async (input, deadline, scheduling) => {
      recorded.admitted.push(input);
      recorded.deadlines.push(deadline);
      recorded.scheduling.push(scheduling);
      const admitted = await admit(input, deadline, scheduling);
      admittedJobs[input.jobId] = admitted;
      if (options.answerLost) throw new Error('deadline exceeded');
      return admitted;
    },
    logger: pino({ level: 'silent' }),
    admissions: admissionGateFor(config),
    clock: { now: () => NOW },
    ...(options.estimator ? { estimator: options.estimator } : {}),
  };
  return { deps, recorded, leaveStale: idempotency.leaveStale };
}

const refusal = (type: string) => new WorkflowUpdateFailedError('update failed', ApplicationFailure.create({ type, message: `refused: ${type}` }));

describe('submitJob', () => {
  it('admits a priced job through its workflow and answers with its cost and ETA', async () => {
    const { deps, recorded } = fakeDeps();
    const outcome = await submitJob(deps, caller, request, { requestId: 'req_1' });

    expect(outcome.status).toBe(201);
    expect(outcome.headers).toEqual({});
    const [input] = recorded.admitted;
    // 2 images at 50,000 each, 10 % discount.
    expect(outcome.body).toEqual({
      jobId: input.jobId,
      requestId: 'req_1',
      status: 'pending',
      estimatedCompletionTime: '2030-01-01T00:00:14.000Z',
      // Without an estimator there is no line to place the job in.
      estimatedCompletionTimeP90: null,
      estimatedStartTime: null,
      placeInLine: null,
      costMicroCents: 90_000,
    });
    expect(input).toMatchObject({
      accountId: 'acc_a',
      apiKeyId: 'key_a',
      modelSlug: 'acme/painter',
      versionId: 'v2',
      routes: [{ providerId: 'acme', expectedProcessingSeconds: 12 }],
      input: { prompt: 'a lighthouse', num_images: 2 },
      costMicroCents: 90_000,
      webhookUrl: null,
    });
    expect(input.jobId).toMatch(/^job_/);
    expect(recorded.deadlines).toEqual([NOW + config.jobs.admissionTimeoutMs]);
    expect(input.admitBefore).toBe(new Date(NOW + config.jobs.admissionTimeoutMs).toISOString());
    expect(recorded.counted).toEqual(['model:acme/painter@v2']);
    expect(recorded.takenBack).toEqual([]);
  });

  it("places the job in its first route's line and hands the estimate to its admission", async () => {
    const asked: unknown[] = [];
    const { deps, recorded } = fakeDeps({
      estimator: {
        async estimate() {
          throw new Error('a submit asks for its estimate with the others of its admission');
        },
        async estimateAll(jobs) {
          asked.push(...jobs);
          return jobs.map(() => ({
            placeInLine: 4,
            startTime: new Date(NOW + 30_000),
            completionTime: new Date(NOW + 42_000),
            completionTimeP90: new Date(NOW + 50_000),
          }));
        },
      },
    });
    const outcome = await submitJob(deps, caller, request, { requestId: 'req_1' });
    expect(outcome.status).toBe(201);
    const [input] = recorded.admitted;
    expect(asked).toEqual([expect.objectContaining({ jobId: input.jobId, accountId: 'acc_a', providerId: 'acme', versionId: 'v2', priorityKey: 3 })]);
    // In seconds from now: the admission makes them instants on its own clock.
    expect(input.estimate).toEqual({ placeInLine: 4, startInSeconds: 30, completionInSeconds: 42, completionP90InSeconds: 50 });
  });

  it('admits the job on its expected time when its line cannot be read', async () => {
    const { deps, recorded } = fakeDeps({
      estimator: {
        async estimate() {
          throw new Error('connection refused');
        },
        async estimateAll() {
          throw new Error('connection refused');
        },
      },
    });
    const outcome = await submitJob(deps, caller, request, { requestId: 'req_1' });
    expect(outcome.status).toBe(201);
    expect(recorded.admitted[0]!.estimate).toBeUndefined();
    expect(outcome.body).toMatchObject({ estimatedCompletionTime: '2030-01-01T00:00:14.000Z', placeInLine: null });
  });

  it("starts the job with the plan's priority and weight and the account as its fairness key", async () => {
    const { deps, recorded } = fakeDeps();
    await submitJob(deps, { ...caller, account: { ...caller.account, plan: 'business' } }, request, { requestId: 'req_1' });
    expect(recorded.scheduling).toEqual([{ priority: 'normal', fairnessKey: 'acc_a', fairnessWeight: 3 }]);
  });

  it('takes a lower priority than the plan asks for, and refuses a higher one before counting or admitting anything', async () => {
    const { deps, recorded } = fakeDeps();
    await submitJob(deps, caller, { ...request, priority: 'low' }, { requestId: 'req_1' });
    expect(recorded.scheduling.map((s) => s.priority)).toEqual(['low']);

    const refused = await submitJob(deps, caller, { ...request, priority: 'high' }, { requestId: 'req_2' }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'priority', planPriority: 'normal', allowed: ['low', 'normal'] }],
    });
    expect(recorded.admitted).toHaveLength(1);
    expect(recorded.counted).toHaveLength(1);
  });

  it('marks a deprecated version with the Deprecation header', async () => {
    const deprecated = { ...model, version: { ...model.version, status: 'deprecated' as const } };
    const { deps } = fakeDeps({ resolved: deprecated });
    const outcome = await submitJob(deps, caller, request, { requestId: 'req_1' });
    expect(outcome.headers).toEqual({ Deprecation: 'true' });
  });

  it('refuses an input off its schema or with unusable files before counting or admitting anything', async () => {
    const offSchema = fakeDeps();
    await expect(submitJob(offSchema.deps, caller, { ...request, input: { num_images: 0 } }, { requestId: 'req_1' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(offSchema.recorded.counted).toEqual([]);
    expect(offSchema.recorded.admitted).toEqual([]);

    const badFile = fakeDeps({ fileProblems: [{ path: 'image_url', message: 'refers to a file that does not exist' }] });
    const refused = submitJob(badFile.deps, caller, request, { requestId: 'req_1' });
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_INPUT', details: [{ path: 'image_url', message: 'refers to a file that does not exist' }] });
    expect(badFile.recorded.counted).toEqual([]);
    expect(badFile.recorded.admitted).toEqual([]);
  });

  it('answers an unknown model and a full rate limit without asking the workflow', async () => {
    const { deps, recorded } = fakeDeps();
    await expect(submitJob(deps, caller, { ...request, model: 'acme/none' }, { requestId: 'req_1' })).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });

    const limited = fakeDeps({ rateLimited: true });
    await expect(submitJob(limited.deps, caller, request, { requestId: 'req_1' })).rejects.toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      hint: { retryAfterSeconds: 30 },
    });
    expect(limited.recorded.admitted).toEqual([]);
    expect(recorded.admitted).toEqual([]);
  });

  it('passes a refusal the client caused on, with its code, and takes the rate limit count back', async () => {
    const broke = fakeDeps({ admit: async () => Promise.reject(refusal('INSUFFICIENT_BALANCE')) });
    await expect(submitJob(broke.deps, caller, request, { requestId: 'req_1' })).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(broke.recorded.takenBack).toEqual(['model:acme/painter@v2']);
    expect(broke.recorded.voided).toEqual([]);

    const busy = fakeDeps({ admit: async () => Promise.reject(refusal('CONCURRENT_JOBS_EXCEEDED')) });
    // A slot frees up in about one processing time of the model (12 s).
    await expect(submitJob(busy.deps, caller, request, { requestId: 'req_1' })).rejects.toMatchObject({
      code: 'CONCURRENT_JOBS_EXCEEDED',
      hint: { retryAfterSeconds: 12 },
    });
  });

  it("passes a spend limit's refusal on with its details, and Retry-After until the limit resets", async () => {
    const details = { limit: 'account_daily', limitMicroCents: 100, spentMicroCents: 90, costMicroCents: 45, resetsAt: new Date(NOW + 3_600_500).toISOString() };
    const overBudget = fakeDeps({
      admit: async () => Promise.reject(new WorkflowUpdateFailedError('update failed', ApplicationFailure.create({ type: 'BUDGET_EXCEEDED', message: 'over', details: [details] }))),
    });
    await expect(submitJob(overBudget.deps, caller, request, { requestId: 'req_1' })).rejects.toMatchObject({
      code: 'BUDGET_EXCEEDED',
      details,
      hint: { retryAfterSeconds: 3601 },
    });
    expect(overBudget.recorded.takenBack).toEqual(['model:acme/painter@v2']);
  });

  it('settles an unknown outcome in the store: an admitted job is a success, anything else is voided and answered 503', async () => {
    const admittedAnyway = fakeDeps({ answerLost: true });
    const outcome = await submitJob(admittedAnyway.deps, caller, request, { requestId: 'req_1' });
    expect(outcome.status).toBe(201);
    expect(outcome.body.jobId).toBe(admittedAnyway.recorded.admitted[0].jobId);
    expect(admittedAnyway.recorded.voided).toEqual([outcome.body.jobId]);
    expect(admittedAnyway.recorded.takenBack).toEqual([]);

    const neverAdmitted = fakeDeps({ admit: async () => Promise.reject(new Error('deadline exceeded')) });
    await expect(submitJob(neverAdmitted.deps, caller, request, { requestId: 'req_1' })).rejects.toMatchObject({
      code: 'PUBSUB_PUBLISH_FAILED',
      hint: { retryAfterSeconds: expect.any(Number) },
    });
    expect(neverAdmitted.recorded.voided).toEqual([neverAdmitted.recorded.admitted[0].jobId]);
    expect(neverAdmitted.recorded.takenBack).toEqual(['model:acme/painter@v2']);
  });

  describe('with an Idempotency-Key', () => {
    it('answers a repeat from the stored answer, admitting once', async () => {
      const { deps, recorded } = fakeDeps();
      const first = await submitJob(deps, caller, request, { requestId: 'req_1', idempotencyKey: 'k1' });
      const again = await submitJob(deps, caller, { input: request.input, model: request.model }, { requestId: 'req_2', idempotencyKey: 'k1' });
      expect(recorded.admitted).toHaveLength(1);
      expect(again.headers).toEqual({ 'Idempotent-Replayed': 'true' });
      expect(again.body).toEqual(first.body);
    });

    it('refuses the key with another body, and frees it after a refusal so that a retry is admitted', async () => {
      let balance = 0;
      const { deps, recorded } = fakeDeps({
        admit: async (input) => {
          if (balance < input.costMicroCents) throw refusal('INSUFFICIENT_BALANCE');
          return admission(input.jobId, input.costMicroCents);
        },
      });
      await expect(submitJob(deps, caller, request, { requestId: 'req_1', idempotencyKey: 'k1' })).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
      balance = 1_000_000;
      const retried = await submitJob(deps, caller, request, { requestId: 'req_2', idempotencyKey: 'k1' });
      expect(retried.headers).toEqual({});
      expect(recorded.admitted).toHaveLength(2);
      await expect(
        submitJob(deps, caller, { ...request, input: { prompt: 'another' } }, { requestId: 'req_3', idempotencyKey: 'k1' }),
      ).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
      await expect(submitJob(deps, caller, request, { requestId: 'req_4', idempotencyKey: ' has spaces ' })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      });
    });

    it('settles a claim left by a request that died: its admitted job is the answer, or a new attempt takes the key', async () => {
      const admitted = admission('job_died', 90_000, '2030-01-01T00:00:09.000Z');
      const hash = requestHash(request);

      const charged = fakeDeps({ admittedJobs: { job_died: admitted } });
      charged.leaveStale('acc_a', 'k1', hash, 'job_died');
      const replayed = await submitJob(charged.deps, caller, request, { requestId: 'req_2', idempotencyKey: 'k1' });
      expect(replayed.headers).toEqual({ 'Idempotent-Replayed': 'true' });
      expect(replayed.body).toMatchObject({ jobId: 'job_died', costMicroCents: 90_000 });
      expect(charged.recorded.admitted).toEqual([]);

      const neverCharged = fakeDeps();
      neverCharged.leaveStale('acc_a', 'k1', hash, 'job_died');
      const fresh = await submitJob(neverCharged.deps, caller, request, { requestId: 'req_2', idempotencyKey: 'k1' });
      expect(neverCharged.recorded.voided).toEqual(['job_died']);
      expect(fresh.headers).toEqual({});
      expect(fresh.body.jobId).not.toBe('job_died');
      expect(neverCharged.recorded.admitted.map((input) => input.jobId)).toEqual([fresh.body.jobId]);
    });
  });
});
