import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpAdapter } from '../../../src/providers/http/adapter';
import type { HttpProviderConfig } from '../../../src/providers/http/config';
import type { GenerationRequest, Generator } from '../../../src/providers/types';
import { DEFAULT_PLAN, FAKE_OUTPUT_SIZE, FakeProviderServer } from '../../support/fakeProviderServer';
import { eventually } from '../../support/eventually';
import { failureOf, isNonDecreasing, recordingContext, type RecordingContext } from './generationContext';

const API_KEY = 'test-provider-key';

let server: FakeProviderServer;
let ctx: RecordingContext;

function config(overrides: Partial<HttpProviderConfig> = {}): HttpProviderConfig {
  return {
    providerId: 'fake',
    baseUrl: server.url,
    apiKey: API_KEY,
    pollIntervalMs: 20,
    maxPollIntervalMs: 5_000,
    requestTimeoutMs: 2_000,
    generationTimeoutSeconds: 30,
    maxOutputBytes: 1024 * 1024,
    ...overrides,
  };
}

function request(jobId = `job_${randomUUID()}`): GenerationRequest {
  return {
    jobId,
    providerId: 'fake',
    modelSlug: 'fake/painter/text-to-image',
    capability: 'text-to-image',
    versionId: 'v1',
    input: { prompt: 'a lighthouse', num_images: '1' },
  };
}

beforeAll(async () => {
  server = await FakeProviderServer.start({ apiKey: API_KEY });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  server.reset();
  ctx = await recordingContext();
});
afterEach(async () => {
  await ctx.dispose();
});

describe('HTTP provider adapter', () => {
  it('submits with the job id as idempotency key, polls to completion and downloads the outputs', async () => {
    server.plan = { ...DEFAULT_PLAN, outputs: 2, runningPolls: 3 };
    const req = request();
    const files = await createHttpAdapter(config()).generate(req, ctx);

    const generation = server.generations().find((g) => g.idempotencyKey === req.jobId);
    expect(generation?.body).toEqual({ model: req.modelSlug, capability: req.capability, version: 'v1', input: req.input });
    const submit = server.requestsTo('submit').at(-1)!;
    expect(submit.headers['idempotency-key']).toBe(req.jobId);
    expect(submit.headers.authorization).toBe(`Bearer ${API_KEY}`);

    expect(files).toHaveLength(2);
    for (const file of files) {
      expect(path.dirname(file.path)).toBe(ctx.workDir);
      expect(file).toMatchObject({ contentType: 'image/png', ...FAKE_OUTPUT_SIZE });
      const meta = await sharp(file.path).metadata();
      expect(meta).toMatchObject({ format: 'png', ...FAKE_OUTPUT_SIZE });
      expect((await stat(file.path)).size).toBe(file.sizeBytes);
    }
    expect(isNonDecreasing(ctx.progress)).toBe(true);
    expect(ctx.progress.some((p) => p > 0 && p < 100)).toBe(true);
    expect(ctx.progress.at(-1)).toBe(100);
  });

  it('resumes the same generation when a retried attempt submits again', async () => {
    server.plan = { ...DEFAULT_PLAN, runningPolls: 4 };
    const req = request();
    const adapter = createHttpAdapter(config());
    const first = adapter.generate(req, ctx);
    await eventually(async () => server.requestsTo('status').some((r) => r.path.includes(generationId(req.jobId))) || undefined, 5_000, 10);
    ctx.controller.abort(new Error('worker shutting down'));
    await expect(first).rejects.toThrow('worker shutting down');

    const retry = await recordingContext({ attempt: 2 });
    try {
      const files = await createHttpAdapter(config()).generate(req, retry);
      expect(files).toHaveLength(1);
    } finally {
      await retry.dispose();
    }
    expect(server.generations().filter((g) => g.idempotencyKey === req.jobId)).toHaveLength(1);
    // An aborted attempt leaves the remote generation running for the retry.
    expect(server.requestsTo('cancel')).toHaveLength(0);
  });

  it('fails retryably on 5xx at submit and succeeds on a later attempt without a second generation', async () => {
    server.failNext('submit', { status: 503, body: { error: { code: 'overloaded', message: 'try later' } } }, 2);
    const req = request();
    const adapter = createHttpAdapter(config());

    for (const attempt of [1, 2]) {
      const attemptCtx = await recordingContext({ attempt });
      const error = await failureOf(adapter.generate(req, attemptCtx));
      await attemptCtx.dispose();
      expect(error).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
    }
    const files = await adapter.generate(req, { ...ctx, attempt: 3 });
    expect(files).toHaveLength(1);
    expect(server.generations().filter((g) => g.idempotencyKey === req.jobId)).toHaveLength(1);
  });

  it('rides out a couple of failed status polls within one attempt', async () => {
    const req = request();
    const adapter = createHttpAdapter(config());
    server.failNext('status', { status: 502, body: { error: { code: 'bad_gateway' } } }, 2);
    const files = await adapter.generate(req, ctx);
    expect(files).toHaveLength(1);
    expect(server.requestsTo('status').filter((r) => r.path.includes(generationId(req.jobId))).length).toBeGreaterThanOrEqual(
      DEFAULT_PLAN.runningPolls + 1,
    );
  });

  it('gives up the attempt retryably when status polls keep failing', async () => {
    server.plan = { ...DEFAULT_PLAN, runningPolls: 1 };
    server.failNext('status', { status: 500 }, 10);
    const error = await failureOf(createHttpAdapter(config()).generate(request(), ctx));
    expect(error).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
  });

  it('reports a 429 at submit as retryable with Retry-After', async () => {
    server.failNext('submit', { status: 429, headers: { 'retry-after': '7' }, body: { error: { code: 'rate_limited' } } });
    const error = await failureOf(createHttpAdapter(config()).generate(request(), ctx));
    expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true, retryAfterSeconds: 7 });
  });

  it('waits out a 429 on a status poll for the Retry-After it names', async () => {
    const req = request();
    server.failNext('status', { status: 429, headers: { 'retry-after': '1' } });
    await createHttpAdapter(config()).generate(req, ctx);
    const polls = server.requestsTo('status');
    const limited = polls.findIndex((r) => r.path.includes(generationId(req.jobId)));
    expect(polls[limited + 1].at - polls[limited].at).toBeGreaterThanOrEqual(950);
  });

  it('polls no sooner than the Retry-After of a running generation', async () => {
    server.plan = { ...DEFAULT_PLAN, runningPolls: 1, retryAfterSeconds: 1 };
    const req = request();
    await createHttpAdapter(config({ pollIntervalMs: 10 })).generate(req, ctx);
    const times = [
      server.requestsTo('submit').at(-1)!.at,
      ...server.requestsTo('status').filter((r) => r.path.includes(generationId(req.jobId))).map((r) => r.at),
    ];
    expect(times).toHaveLength(3);
    for (let i = 1; i < times.length; i += 1) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(950);
  });

  it('rejects validation errors permanently', async () => {
    server.failNext('submit', { status: 422, body: { error: { code: 'invalid_input', message: 'size is not allowed' } } });
    const error = await failureOf(createHttpAdapter(config()).generate(request(), ctx));
    expect(error).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    expect(error.message).toContain('size is not allowed');
  });

  it('rejects content-policy refusals permanently with their own code', async () => {
    server.failNext('submit', { status: 400, body: { error: { code: 'content_policy_violation', message: 'no' } } });
    const atSubmit = await failureOf(createHttpAdapter(config()).generate(request(), ctx));
    expect(atSubmit).toMatchObject({ code: 'CONTENT_POLICY_VIOLATION', retryable: false });

    server.plan = { ...DEFAULT_PLAN, outcome: { status: 'failed', error: { code: 'content_policy_violation', message: 'flagged' } } };
    const afterRunning = await failureOf(createHttpAdapter(config()).generate(request(), ctx));
    expect(afterRunning).toMatchObject({ code: 'CONTENT_POLICY_VIOLATION', retryable: false });
  });

  it('treats a failed generation as final', async () => {
    server.plan = { ...DEFAULT_PLAN, outcome: { status: 'failed', error: { code: 'internal', message: 'model crashed' } } };
    const error = await failureOf(createHttpAdapter(config()).generate(request(), ctx));
    expect(error).toMatchObject({ code: 'PROVIDER_JOB_FAILED', retryable: false });
  });

  it('fails permanently on rejected credentials', async () => {
    const error = await failureOf(createHttpAdapter(config({ apiKey: 'wrong' })).generate(request(), ctx));
    expect(error).toMatchObject({ code: 'PROVIDER_AUTH_FAILED', retryable: false });
  });

  it('times out a slow answer retryably', async () => {
    server.delay('submit', 1_000);
    const started = Date.now();
    const error = await failureOf(createHttpAdapter(config({ requestTimeoutMs: 200 })).generate(request(), ctx));
    expect(error).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('times out a generation that runs past its deadline', async () => {
    server.plan = { ...DEFAULT_PLAN, runningPolls: 1_000_000 };
    const error = await failureOf(createHttpAdapter(config({ generationTimeoutSeconds: 1, pollIntervalMs: 50 })).generate(request(), ctx));
    expect(error).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
  });

  it('refuses outputs of an unexpected content type', async () => {
    server.plan = { ...DEFAULT_PLAN, outputContentType: 'text/html' };
    const error = await failureOf(createHttpAdapter(config()).generate(request(), ctx));
    expect(error).toMatchObject({ code: 'BAD_OUTPUT', retryable: false });
  });

  it('forwards cancel, found by job id from any adapter instance, and the running attempt ends cancelled', async () => {
    server.plan = { ...DEFAULT_PLAN, runningPolls: 1_000_000 };
    const req = request();
    const running = createHttpAdapter(config()).generate(req, ctx);
    await eventually(async () => server.requestsTo('status').some((r) => r.path.includes(generationId(req.jobId))) || undefined, 5_000, 10);

    await createHttpAdapter(config()).cancel(req.jobId);
    const error = await failureOf(running);
    expect(error).toMatchObject({ code: 'PROVIDER_CANCELLED', retryable: false });
    expect(server.generations().find((g) => g.idempotencyKey === req.jobId)?.status).toBe('cancelled');
    expect(server.requestsTo('cancel').some((r) => r.path === `/v1/generations/${generationId(req.jobId)}/cancel`)).toBe(true);
  });

  it('treats cancel of a job the provider never saw as done', async () => {
    const before = server.requestsTo('cancel').length;
    await expect(createHttpAdapter(config()).cancel(`job_${randomUUID()}`)).resolves.toBeUndefined();
    expect(server.requestsTo('cancel')).toHaveLength(before);
  });

  it('stops promptly when the activity is cancelled', async () => {
    server.plan = { ...DEFAULT_PLAN, runningPolls: 1_000_000, retryAfterSeconds: 30 };
    const adapter: Generator = createHttpAdapter(config({ maxPollIntervalMs: 30_000, generationTimeoutSeconds: 300 }));
    const running = adapter.generate(request(), ctx);
    await eventually(async () => ctx.progress.length > 0 || undefined, 5_000, 10);
    const started = Date.now();
    ctx.controller.abort(new Error('activity cancelled'));
    await expect(running).rejects.toThrow('activity cancelled');
    expect(Date.now() - started).toBeLessThan(500);
  });
});

function generationId(jobId: string): string {
  const g = server.generations().find((x) => x.idempotencyKey === jobId);
  return g ? g.id : '\u0000none';
}

