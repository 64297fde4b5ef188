/**
 * Submit, estimate and cancel over HTTP against the real stack. No provider worker runs for this stack's
 * private provider queues, so every admitted job stays `pending` until a test cancels it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiDeps, startApiServer, type RunningApi } from '../../../src/api/server';
import { createTestAccount, startTestStack, testConfig, type TestStack } from '../../support/stack';
import { ELEMENTS_VIDEO, TEXT_TO_IMAGE, get, imageJob, post } from './helpers';

let stack: TestStack;
const PRIVATE_VIDEO = 'motionworks/reel-max/image-to-video';

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

const submitUrl = () => `${stack.url}/v1/jobs/submit`;

async function balance(accountId: string): Promise<bigint> {
  return (await stack.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).balanceMicroCents;
}

async function charges(accountId: string): Promise<number> {
  return stack.prisma.ledgerEntry.count({ where: { accountId, kind: 'charge' } });
}

function videoJob(input: Record<string, unknown> = {}) {
  return {
    model: ELEMENTS_VIDEO,
    input: {
      prompt: 'Mara waves at the camera',
      image_url: 'https://example.com/scene.png',
      elements: [{ characterImages: ['https://example.com/mara.png'], type: 'character', name: 'Mara' }],
      ...input,
    },
  };
}

describe('POST /v1/jobs/submit errors', () => {
  it('401 without a key, 403 INSUFFICIENT_SCOPE with a key lacking submit_job', async () => {
    const none = await post(submitUrl(), 'nope', imageJob());
    expect(none.status).toBe(401);
    const account = await createTestAccount(stack.prisma, { scopes: ['check_status'] });
    const res = await post(submitUrl(), account.apiKey, imageJob());
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('400 VALIDATION_ERROR for a body without model or input', async () => {
    const account = await createTestAccount(stack.prisma);
    const res = await post(submitUrl(), account.apiKey, { input: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain('model');
  });

  it('404 MODEL_NOT_FOUND for unknown slugs and disabled or deleted versions', async () => {
    const account = await createTestAccount(stack.prisma);
    for (const body of [
      { model: 'nobody/nothing/text-to-image', input: { prompt: 'x' } },
      { model: 'lumina/lumi-xl/text-to-image', version: 'v3', input: { prompt: 'x' } },
      { ...videoJob(), version: 'v1' },
      { model: TEXT_TO_IMAGE, version: 'v99', input: { prompt: 'x' } },
    ]) {
      const res = await post(submitUrl(), account.apiKey, body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body.error.code).toBe('MODEL_NOT_FOUND');
    }
    expect(await charges(account.accountId)).toBe(0);
  });

  it('403 MODEL_ACCESS_DENIED for a private model and for a key restricted to other models', async () => {
    const account = await createTestAccount(stack.prisma);
    const priv = await post(submitUrl(), account.apiKey, { model: PRIVATE_VIDEO, input: { prompt: 'x', image_url: 'https://example.com/a.png' } });
    expect(priv.status).toBe(403);
    expect(priv.body.error.code).toBe('MODEL_ACCESS_DENIED');
    const restricted = await createTestAccount(stack.prisma, { keyModels: ['pixelforge/forge-lite/text-to-image'] });
    const res = await post(submitUrl(), restricted.apiKey, imageJob());
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('MODEL_ACCESS_DENIED');
  });

  it('400 INVALID_INPUT listing every failing path, and for a non-https webhookUrl', async () => {
    const account = await createTestAccount(stack.prisma);
    const res = await post(submitUrl(), account.apiKey, { model: TEXT_TO_IMAGE, input: { num_images: '5', colour: 'red' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_INPUT');
    const paths = res.body.error.details.map((d: { path: string }) => d.path).sort();
    expect(paths).toEqual(['colour', 'num_images', 'prompt']);
    const hook = await post(submitUrl(), account.apiKey, { ...imageJob(), webhookUrl: 'http://example.com/hook' });
    expect(hook.status).toBe(400);
    expect(hook.body.error.code).toBe('INVALID_INPUT');
    expect(hook.body.error.details[0].path).toBe('webhookUrl');
    for (const duration of ['2', '16']) {
      const bad = await post(submitUrl(), account.apiKey, videoJob({ duration }));
      expect(bad.status).toBe(400);
      expect(bad.body.error.details[0].path).toBe('duration');
    }
    expect(await charges(account.accountId)).toBe(0);
  });

  it('400 INVALID_INPUT for a webhookUrl at a metadata or link-local address in any form, though this stack allows private receivers', async () => {
    expect(stack.config.webhooks.allowPrivate).toBe(true);
    const account = await createTestAccount(stack.prisma);
    for (const webhookUrl of ['https://[::ffff:169.254.169.254]/hook', 'https://[::ffff:a9fe:aa02]/hook', 'https://169.254.170.2/hook', 'https://[fd00:ec2::23]/hook', 'https://[2002:a9fe:a9fe::]/hook', 'https://169.254.7.7/hook']) {
      const hook = await post(submitUrl(), account.apiKey, { ...imageJob(), webhookUrl });
      expect([webhookUrl, hook.status, hook.body.error?.code, hook.body.error?.details?.[0]?.path]).toEqual([webhookUrl, 400, 'INVALID_INPUT', 'webhookUrl']);
      expect(hook.body.error.details[0].message).toMatch(/(metadata|link-local) address, which is never reachable/);
    }
    expect(await charges(account.accountId)).toBe(0);
  });

  it('402 INSUFFICIENT_BALANCE charges nothing and creates no job', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 44_999n });
    const res = await post(submitUrl(), account.apiKey, imageJob());
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect(await balance(account.accountId)).toBe(44_999n);
    expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(0);
  });

  it('429 CONCURRENT_JOBS_EXCEEDED when the plan limit of pending jobs is reached', async () => {
    const account = await createTestAccount(stack.prisma, { maxConcurrentJobs: 2 });
    for (let i = 0; i < 2; i++) expect((await post(submitUrl(), account.apiKey, imageJob())).status).toBe(201);
    const res = await post(submitUrl(), account.apiKey, imageJob());
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('CONCURRENT_JOBS_EXCEEDED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await charges(account.accountId)).toBe(2);
  });

  it('429 RATE_LIMIT_EXCEEDED with Retry-After past the version requestsPerMinute', async () => {
    const model = PRIVATE_VIDEO; // 10 requests per minute
    const account = await createTestAccount(stack.prisma, { allowedModels: [model], maxConcurrentJobs: 20 });
    const body = (prompt: string) => ({ model, input: { prompt, image_url: 'https://example.com/a.png' } });
    // The limit counts per UTC minute: start early in a minute so all eleven requests fall into the same window.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await post(submitUrl(), account.apiKey, body(`p${i}`))).status);
    expect(statuses).toEqual(Array(10).fill(201));
    const res = await post(submitUrl(), account.apiKey, body('one too many'));
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await charges(account.accountId)).toBe(10);
    // The refused request counts in neither window.
    const counters = await stack.prisma.$queryRaw<{ scope: string; count: number }[]>`
      SELECT scope, count FROM rate_limit_counters WHERE account_id = ${account.accountId} ORDER BY scope`;
    expect(counters.map((c) => [c.scope.split(':').at(-1), c.count])).toEqual([
      ['day', 10],
      ['minute', 10],
    ]);
  });

  it('503 PUBSUB_PUBLISH_FAILED when Temporal cannot be reached, with nothing charged', async () => {
    const config = testConfig({ TEMPORAL_ADDRESS: '127.0.0.1:1' }, { jobs: { admissionTimeoutMs: 1500 } });
    const api: RunningApi = await startApiServer(await createApiDeps(config), 0, '127.0.0.1');
    try {
      const account = await createTestAccount(stack.prisma);
      const res = await post(`${api.url}/v1/jobs/submit`, account.apiKey, imageJob());
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('PUBSUB_PUBLISH_FAILED');
      // Admissions have just begun to fail: come back in a couple of seconds (with jitter).
      expect([2, 3]).toContain(Number(res.headers.get('retry-after')));
      expect(await balance(account.accountId)).toBe(100_000_000n);
      expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(0);
      // Nothing was made, so nothing counts against the model's rate limits: a retry finds them as they were.
      const counters = await stack.prisma.$queryRaw<{ count: number }[]>`SELECT count FROM rate_limit_counters WHERE account_id = ${account.accountId}`;
      expect(counters.map((c) => c.count)).toEqual([0, 0]);
    } finally {
      await api.stop();
    }
  });

  it('sheds submits at once while admissions keep failing, instead of letting each wait out its deadline', async () => {
    const config = testConfig({ TEMPORAL_ADDRESS: '127.0.0.1:1' }, { jobs: { admissionTimeoutMs: 3000, admissionMinTimeoutMs: 400 } });
    const api: RunningApi = await startApiServer(await createApiDeps(config), 0, '127.0.0.1');
    try {
      const account = await createTestAccount(stack.prisma);
      const answers: { ms: number; troubleMs: number; status: number; code: string; retryAfter: string | null; reason?: string }[] = [];
      const troubleStarted = performance.now();
      // Enough submits that, however slowly a loaded machine answers the first ones, most of the rest meet the open gate.
      for (let i = 0; i < 16; i++) {
        const started = performance.now();
        const res = await post(`${api.url}/v1/jobs/submit`, account.apiKey, imageJob());
        const ended = performance.now();
        answers.push({ ms: ended - started, troubleMs: ended - troubleStarted, status: res.status, code: res.body.error.code, retryAfter: res.headers.get('retry-after'), reason: res.body.error.details?.reason });
      }
      expect(answers.every((a) => a.status === 503 && a.code === 'PUBSUB_PUBLISH_FAILED')).toBe(true);
      // With no admission to go by, the first waits the full deadline; after an unknown one, the minimum; once most
      // recent admissions failed, the gate sheds without waiting.
      expect(answers[0].ms).toBeGreaterThanOrEqual(2_900);
      expect(answers[1].ms).toBeGreaterThanOrEqual(380);
      expect(answers[1].ms).toBeLessThan(2_000);
      const shed = answers.filter((a) => a.reason === 'failing');
      expect(shed.length).toBeGreaterThanOrEqual(6);
      for (const a of shed) {
        expect(a.ms).toBeLessThan(300);
        // Half of the seconds of trouble so far (the first deadline and a few short ones), at least 2, with up to half
        // again of jitter.
        const half = Math.max(2, Math.ceil(a.troubleMs / 2_000));
        expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(2);
        expect(Number(a.retryAfter)).toBeLessThanOrEqual(half + Math.floor(half / 2 + 1));
      }
      expect(await balance(account.accountId)).toBe(100_000_000n);
      expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(0);
    } finally {
      await api.stop();
    }
  });
});

describe('POST /v1/jobs/submit success', () => {
  it('uses the newest active version when none is given and flags a deprecated one', async () => {
    const account = await createTestAccount(stack.prisma);
    const latest = await post(submitUrl(), account.apiKey, imageJob());
    expect(latest.status, JSON.stringify(latest.body)).toBe(201);
    expect(latest.headers.get('deprecation')).toBeNull();
    expect((await get(`${stack.url}/v1/jobs/${latest.body.jobId}`, account.apiKey)).body.version).toBe('v2');
    const old = await post(submitUrl(), account.apiKey, { ...imageJob(), version: 'v1' });
    expect(old.status).toBe(201);
    expect(old.headers.get('deprecation')).toBe('true');
  });

  it('charges the exact price at every boundary, and the estimate equals the charge with and without discount', async () => {
    const cases: [Record<string, unknown>, number][] = [
      [imageJob(), 45_000],
      [imageJob({ num_images: '1' }), 45_000],
      [imageJob({ num_images: '2' }), 90_000],
      [imageJob({ num_images: '3' }), 135_000],
      [imageJob({ num_images: '4' }), 180_000],
      [videoJob(), 425_000],
      [videoJob({ duration: '3' }), 255_000],
      [videoJob({ duration: '15' }), 1_275_000],
      [videoJob({ duration: '3', quality: 'pro' }), 382_500],
      [videoJob({ duration: '15', quality: 'pro' }), 1_912_500],
    ];
    for (const discountPercent of [0, 15]) {
      const account = await createTestAccount(stack.prisma, { discountPercent, maxConcurrentJobs: 50 });
      for (const [body, listPrice] of cases) {
        const expected = listPrice - Math.floor((listPrice * discountPercent) / 100);
        const estimate = await post(`${stack.url}/v1/jobs/estimate`, account.apiKey, body);
        expect(estimate.status).toBe(200);
        expect(estimate.body.baseCostMicroCents).toBe(listPrice);
        expect(estimate.body.estimatedCostMicroCents).toBe(expected);
        expect(estimate.body.hasDiscount).toBe(discountPercent > 0);
        if (discountPercent > 0) {
          expect(estimate.body.discounted).toMatchObject({ percentage: discountPercent, savedMicroCents: listPrice - expected });
        }
        const sum = estimate.body.breakdown.reduce((s: number, e: { costMicroCents: number }) => s + e.costMicroCents, 0);
        expect(sum).toBe(expected);
        const before = await balance(account.accountId);
        const submitted = await post(submitUrl(), account.apiKey, body);
        expect(submitted.status).toBe(201);
        expect(submitted.body.costMicroCents).toBe(expected);
        expect(before - (await balance(account.accountId))).toBe(BigInt(expected));
      }
    }
  });

  it('accepts exactly 20 of 50 parallel submits on an account funded for 20, never going negative', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 20n * 45_000n, maxConcurrentJobs: 100 });
    // A 503 charged nothing and says when to retry: a loaded machine may answer some (and shed the retries that come
    // too soon), so each is retried as a client would, after its Retry-After, for up to a minute and a half.
    const submitRetrying503 = async () => {
      const deadline = Date.now() + 90_000;
      for (;;) {
        const res = await post(submitUrl(), account.apiKey, imageJob());
        if (res.status !== 503 || Date.now() >= deadline) return res;
        await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
      }
    };
    const results = await Promise.all(Array.from({ length: 50 }, submitRetrying503));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 402)).toHaveLength(30);
    expect(await balance(account.accountId)).toBe(0n);
    const ledger = await stack.prisma.ledgerEntry.findMany({ where: { accountId: account.accountId, kind: 'charge' } });
    expect(ledger).toHaveLength(20);
    expect(ledger.every((e) => e.balanceAfterMicroCents >= 0n)).toBe(true);
    expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(20);
  }, 180_000);
});

describe('Idempotency-Key', () => {
  it('returns the original answer to racing requests with the same key and body, and charges once', async () => {
    const account = await createTestAccount(stack.prisma);
    const headers = { 'idempotency-key': `race-${account.accountId}` };
    const results = await Promise.all(Array.from({ length: 6 }, () => post(submitUrl(), account.apiKey, imageJob(), headers)));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    const jobIds = new Set(results.map((r) => r.body.jobId));
    expect(jobIds.size).toBe(1);
    // Equal answers, each with an eventsUrl signed when it was given (its token's expiry may differ by a second).
    const { eventsUrl: _signed, ...original } = results[0].body;
    const unsigned = ({ eventsUrl, ...answer }: any) => {
      expect(eventsUrl).toContain(`/v1/jobs/${original.jobId}/events?token=`);
      return answer;
    };
    for (const r of results) expect(unsigned(r.body)).toEqual(original);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
    expect(await charges(account.accountId)).toBe(1);

    const later = await post(submitUrl(), account.apiKey, imageJob(), headers);
    expect(unsigned(later.body)).toEqual(original);

    const reused = await post(submitUrl(), account.apiKey, imageJob({ prompt: 'something else' }), headers);
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await charges(account.accountId)).toBe(1);
  });

  it('frees the key after a refused request', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000n });
    const headers = { 'idempotency-key': 'retry-after-topup' };
    expect((await post(submitUrl(), account.apiKey, imageJob(), headers)).status).toBe(402);
    await stack.prisma.account.update({ where: { id: account.accountId }, data: { balanceMicroCents: 100_000n } });
    expect((await post(submitUrl(), account.apiKey, imageJob(), headers)).status).toBe(201);
  });
});

describe('POST /v1/jobs/{jobId}/cancel and GET /v1/jobs/{jobId}', () => {
  it('cancels a pending job with a full refund; a second cancel is 409', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const submitted = await post(submitUrl(), account.apiKey, videoJob());
    expect(await balance(account.accountId)).toBe(575_000n);
    const jobId = submitted.body.jobId;
    const cancelled = await post(`${stack.url}/v1/jobs/${jobId}/cancel`, account.apiKey);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ jobId, status: 'cancelled', refundedMicroCents: 425_000 });
    expect(await balance(account.accountId)).toBe(1_000_000n);
    const again = await post(`${stack.url}/v1/jobs/${jobId}/cancel`, account.apiKey);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('JOB_CANNOT_BE_CANCELLED');
    const job = await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey);
    expect(job.body).toMatchObject({ status: 'cancelled', costMicroCents: 425_000, refundedMicroCents: 425_000, outputs: [] });
    expect(job.body.completedAt).not.toBeNull();
  });

  it("keeps another account's job invisible (404) and uncancellable (403); unknown ids are 404", async () => {
    const owner = await createTestAccount(stack.prisma);
    const other = await createTestAccount(stack.prisma);
    const jobId = (await post(submitUrl(), owner.apiKey, imageJob())).body.jobId;
    const read = await get(`${stack.url}/v1/jobs/${jobId}`, other.apiKey);
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('JOB_NOT_FOUND');
    const cancel = await post(`${stack.url}/v1/jobs/${jobId}/cancel`, other.apiKey);
    expect(cancel.status).toBe(403);
    expect(cancel.body.error.code).toBe('UNAUTHORIZED_ACCESS');
    expect((await get(`${stack.url}/v1/jobs`, other.apiKey)).body.jobs).toEqual([]);
    const missing = await post(`${stack.url}/v1/jobs/job_doesnotexist/cancel`, other.apiKey);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('JOB_NOT_FOUND');
    expect((await get(`${stack.url}/v1/jobs/${jobId}`, owner.apiKey)).body.status).toBe('pending');
  });
});
