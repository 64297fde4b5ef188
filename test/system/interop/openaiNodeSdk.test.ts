/**
 * The official `openai` Node SDK (the project's own dependency, 7.x), unmodified, against the OpenAI dialect under
 * /openai/v1: the same image generation as the Python SDK's test (n=2 as URLs and as base64), the model list, and its
 * error classes, from TypeScript. The requests are ordinary jobs, charged once each.
 */
import OpenAI, { NotFoundError, RateLimitError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get } from '../../support/api';
import { ledgerJobIds } from '../../support/ledger';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';

const FORGE_PRO = 'pixelforge/forge-pro/text-to-image';
const FORGE_LITE = 'pixelforge/forge-lite/text-to-image';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ providers: ['pixelforge'] });
});

afterAll(async () => {
  await stack?.stop();
});

function sdk(apiKey: string, options: { maxRetries?: number } = {}): OpenAI {
  return new OpenAI({ baseURL: `${stack.url}/openai/v1`, apiKey, ...options });
}

async function raised(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('the call did not fail');
}

describe('the official openai Node SDK against /openai/v1', () => {
  it('generates n=2 images as URLs and as base64, each job charged once', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const client = sdk(account.apiKey);

    const byUrl = await client.images.generate({ model: 'forge-pro', prompt: 'a lighthouse at dusk', n: 2, size: '1024x1024', response_format: 'url' });
    expect(byUrl.data).toHaveLength(2);
    for (const image of byUrl.data ?? []) {
      const fetched = await fetch(image.url!);
      expect(fetched.status).toBe(200);
      expect(Buffer.from(await fetched.arrayBuffer()).subarray(0, 8)).toEqual(PNG);
    }

    const inline = await client.images.generate({ model: FORGE_LITE, prompt: 'a harbour at dawn', n: 2, response_format: 'b64_json' });
    expect(inline.data?.map((image) => Buffer.from(image.b64_json!, 'base64').subarray(0, 8))).toEqual([PNG, PNG]);

    const jobs = await stack.prisma.job.findMany({ where: { accountId: account.accountId }, select: { id: true, modelSlug: true, status: true } });
    expect(jobs.map((job) => job.modelSlug).sort()).toEqual([FORGE_LITE, FORGE_LITE, FORGE_PRO]);
    expect(jobs.every((job) => job.status === 'completed')).toBe(true);
    const charges = await stack.prisma.ledgerEntry.findMany({ where: { accountId: account.accountId, kind: 'charge' }, select: { jobId: true } });
    expect(charges.map((charge) => charge.jobId).sort()).toEqual(jobs.map((job) => job.id).sort());

    // The account sees the same through its own API: the jobs listed, each charged once in its ledger.
    const page = await get(`${stack.url}/v1/jobs`, account.apiKey);
    expect(page.status).toBe(200);
    const listed = page.body.jobs as { jobId: string; model: string; status: string }[];
    expect(listed.map((job) => [job.jobId, job.model, job.status]).sort()).toEqual(jobs.map((job) => [job.id, job.modelSlug, 'completed']).sort());
    expect(await ledgerJobIds(stack.url, account.apiKey, 'charge')).toEqual(jobs.map((job) => job.id).sort());
    expect(await ledgerJobIds(stack.url, account.apiKey, 'refund')).toEqual([]);
  });

  it('lists the models and raises its NotFoundError for an unknown model and RateLimitError (insufficient_quota) without credits', async () => {
    const account = await createTestAccount(stack.prisma, { keyModels: [FORGE_PRO] });
    const ids: string[] = [];
    for await (const model of sdk(account.apiKey).models.list()) ids.push(model.id);
    expect(ids.sort()).toEqual(['forge-pro', 'gpt-image-1', FORGE_PRO].sort());

    const unknown = await raised(() => sdk(account.apiKey, { maxRetries: 0 }).images.generate({ model: 'no-such-model', prompt: 'anything' }));
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown).toMatchObject({ status: 404, code: 'MODEL_NOT_FOUND', param: 'model', type: 'invalid_request_error' });

    const poor = await createTestAccount(stack.prisma, { creditsMicroCents: 0n });
    const noCredits = await raised(() => sdk(poor.apiKey, { maxRetries: 0 }).images.generate({ model: 'forge-pro', prompt: 'anything' }));
    expect(noCredits).toBeInstanceOf(RateLimitError);
    expect(noCredits).toMatchObject({ status: 429, code: 'INSUFFICIENT_BALANCE', type: 'insufficient_quota' });
    expect(await stack.prisma.job.count({ where: { accountId: { in: [account.accountId, poor.accountId] } } })).toBe(0);
  });
});
