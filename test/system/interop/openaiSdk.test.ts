/**
 * The official `openai` Python SDK, unmodified, against the OpenAI dialect under /openai/v1
 * (test/interop/python/openai_images.py): images as URLs and as base64 with n=2, the model list, its error classes
 * for an unknown model and an empty balance, and a 429 it retries. The same requests are ordinary jobs: listed by
 * GET /v1/jobs and charged once each in the ledger, also when a request is retried with its Idempotency-Key.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../support/api';
import { ledgerJobIds } from '../../support/ledger';
import { runPythonProgram } from '../../support/python';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';

const FORGE_PRO = 'pixelforge/forge-pro/text-to-image';
const FORGE_LITE = 'pixelforge/forge-lite/text-to-image';
/** No worker serves lumina in this stack: its jobs stay pending. */
const NEVER_STARTS = 'lumina/lumi-xl/text-to-image';
const WAIT_SECONDS = 20;

let stack: TestStack;
let baseUrl: string;

beforeAll(async () => {
  // A short wait, so a job that never starts (lumina has no worker here) runs past it within the test.
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { dialects: { openAiImagesWaitSeconds: WAIT_SECONDS } } });
  baseUrl = `${stack.url}/openai/v1`;
});

afterAll(async () => {
  await stack?.stop();
});

async function chargesOf(accountId: string) {
  return stack.prisma.ledgerEntry.findMany({ where: { accountId, kind: 'charge' }, select: { jobId: true, amountMicroCents: true } });
}

describe('the official openai Python SDK against /openai/v1', () => {
  it('generates n=2 images as fetchable URLs (one job with a count) and as base64 (two jobs), each job listed and charged once', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const result = await runPythonProgram('openai_images.py', ['generate'], {
      baseUrl,
      apiKey: account.apiKey,
      urlModel: 'forge-pro',
      b64Model: FORGE_LITE,
      idempotencyKey: randomUUID(),
    });

    expect(result.url.count).toBe(2);
    expect(result.url.fetched).toEqual([
      { status: 200, png: true },
      { status: 200, png: true },
    ]);
    expect(result.b64).toEqual([
      { count: 2, png: [true, true] },
      { count: 2, png: [true, true] },
    ]);
    expect(result.sameImagesOnRetry).toBe(true);

    // forge-pro makes both images in one job (num_images "2"); forge-lite has no count field: two jobs, made once
    // although the request was sent twice with its Idempotency-Key.
    const page = await get(`${stack.url}/v1/jobs`, account.apiKey);
    expect(page.status).toBe(200);
    const jobs = page.body.jobs as { jobId: string; model: string; status: string }[];
    expect(jobs.map((job) => job.model).sort()).toEqual([FORGE_LITE, FORGE_LITE, FORGE_PRO]);
    expect(jobs.every((job) => job.status === 'completed')).toBe(true);
    const proJob = await get(`${stack.url}/v1/jobs/${jobs.find((job) => job.model === FORGE_PRO)!.jobId}`, account.apiKey);
    expect(proJob.body.input).toMatchObject({ prompt: 'a lighthouse at dusk', num_images: '2', size: 'square_hd' });

    const charges = await chargesOf(account.accountId);
    expect(charges.map((charge) => charge.jobId).sort()).toEqual(jobs.map((job) => job.jobId).sort());
    const balance = await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    const charged = charges.reduce((sum, charge) => sum - charge.amountMicroCents, 0n);
    expect(balance.balanceMicroCents).toBe(10_000_000n - charged);
    expect(await ledgerJobIds(stack.url, account.apiKey, 'charge')).toEqual(jobs.map((job) => job.jobId).sort());
    expect(await ledgerJobIds(stack.url, account.apiKey, 'refund')).toEqual([]);
  });

  it('lists the slugs and aliases the key may use, and only models that take jobs here', async () => {
    // gpt-image-2 is allowed to the key but runs only on OpenAI, whose credential this stack does not have.
    const account = await createTestAccount(stack.prisma, { keyModels: [FORGE_PRO, FORGE_LITE, 'openai/gpt-image-2/text-to-image'] });
    const result = await runPythonProgram('openai_images.py', ['models'], { baseUrl, apiKey: account.apiKey });
    // gpt-image-1 (OpenAI retired it) is the seeded catalog's alias of forge-pro, so clients that default to it run here.
    expect([...result.ids].sort()).toEqual(['forge-lite', 'forge-pro', 'gpt-image-1', FORGE_LITE, FORGE_PRO].sort());

    const everything = await createTestAccount(stack.prisma);
    const all = await runPythonProgram('openai_images.py', ['models'], { baseUrl, apiKey: everything.apiKey });
    expect(all.ids).toEqual(expect.arrayContaining([FORGE_PRO, 'forge-pro', NEVER_STARTS]));
    expect(all.ids).not.toContain('gpt-image-2');
  });

  it("raises the SDK's NotFoundError for an unknown model, BadRequestError for a size the model cannot make, RateLimitError (insufficient_quota) without credits or over a spend limit", async () => {
    const account = await createTestAccount(stack.prisma);
    const poor = await createTestAccount(stack.prisma, { creditsMicroCents: 0n });
    const capped = await createTestAccount(stack.prisma, { dailyLimitMicroCents: 1n });
    const result = await runPythonProgram('openai_images.py', ['errors'], {
      baseUrl,
      apiKey: account.apiKey,
      poorKey: poor.apiKey,
      cappedKey: capped.apiKey,
      model: 'forge-pro',
    });

    expect(result.unknownModel).toMatchObject({ class: 'NotFoundError', status: 404, code: 'MODEL_NOT_FOUND', type: 'invalid_request_error' });
    expect(result.unknownModel.body).toMatchObject({ code: 'MODEL_NOT_FOUND', param: 'model' });
    expect(result.unsupportedSize).toMatchObject({ class: 'BadRequestError', status: 400, code: 'INVALID_INPUT', type: 'invalid_request_error' });
    expect(result.unsupportedSize.body.param).toBe('size');
    expect(result.unsupportedSize.body.message).toContain('1024x1024');
    expect(result.noCredits).toMatchObject({ class: 'RateLimitError', status: 429, code: 'INSUFFICIENT_BALANCE', type: 'insufficient_quota' });
    expect(result.overSpendLimit).toMatchObject({ class: 'RateLimitError', status: 429, code: 'BUDGET_EXCEEDED', type: 'insufficient_quota' });
    expect(result.overSpendLimit.body.message).toMatch(/limit/i);

    // Nothing was made or charged for any of them.
    const accountIds = [account.accountId, poor.accountId, capped.accountId];
    expect(await stack.prisma.job.count({ where: { accountId: { in: accountIds } } })).toBe(0);
    expect(await stack.prisma.ledgerEntry.count({ where: { accountId: { in: accountIds }, kind: 'charge' } })).toBe(0);
  });

  it('answers 429 with Retry-After while the account has no free concurrent slot, which the SDK retries', async () => {
    const account = await createTestAccount(stack.prisma, { maxConcurrentJobs: 1 });
    const blocking = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: NEVER_STARTS, input: { prompt: 'holds the only slot' } });
    expect(blocking.status).toBe(201);

    const result = await runPythonProgram('openai_images.py', ['retry'], {
      baseUrl,
      apiKey: account.apiKey,
      model: 'forge-pro',
      blockingJobUrl: `${stack.url}/v1/jobs/${blocking.body.jobId}/cancel`,
    });
    expect(result.statuses).toEqual([429, 200]);
    expect(result.count).toBe(1);
  });

  it('answers 504 WAIT_TIMEOUT past the wait, which the SDK does not retry into new jobs; the job goes on', async () => {
    const account = await createTestAccount(stack.prisma);
    const startedAt = Date.now();
    const result = await runPythonProgram('openai_images.py', ['timeout'], { baseUrl, apiKey: account.apiKey, model: 'lumi-xl' });
    expect(result).toMatchObject({ class: 'InternalServerError', status: 504, code: 'WAIT_TIMEOUT', type: 'server_error', statuses: [504] });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(WAIT_SECONDS * 1000);

    const jobs = await stack.prisma.job.findMany({ where: { accountId: account.accountId }, select: { id: true, status: true, modelId: true } });
    expect(jobs).toEqual([{ id: expect.any(String), status: 'pending', modelId: NEVER_STARTS }]);
    expect(result.body.message).toContain(jobs[0]!.id);
    expect((await chargesOf(account.accountId)).map((charge) => charge.jobId)).toEqual([jobs[0]!.id]);
  }, 120_000);
});
