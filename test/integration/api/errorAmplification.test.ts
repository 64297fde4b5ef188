/**
 * A small request cannot make a huge or deep error: problem lists are capped (with a count of the rest), arrays past
 * their maxItems are not validated item by item, and nesting past a limit is a 400 before anything else runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { post, request, startTestApi } from '../../support/api';

const ELEMENTS_MODEL = 'motionworks/reel-2/image-to-video-elements';
const MAX_ERROR_BODY_BYTES = 8_000;

let api: RunningApi;
let account: TestAccount;

beforeAll(async () => {
  api = await startTestApi();
  account = await createTestAccount(api.deps.prisma);
});

afterAll(() => api?.stop());

function bodySize(body: unknown): number {
  return Buffer.byteLength(JSON.stringify(body));
}

describe('error amplification', () => {
  it('a 100,000-item array past maxItems gets one short error, not one per item', async () => {
    // Every item is wrong three times over (three required fields missing): 300,000 problems without the cap.
    const elements = Array.from({ length: 100_000 }, () => ({}));
    const started = Date.now();
    const res = await post(`${api.url}/v1/jobs/submit`, account.apiKey, {
      model: ELEMENTS_MODEL,
      input: { prompt: 'crowd', image_url: 'https://example.com/a.png', elements },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_INPUT');
    expect(res.body.error.details).toEqual([{ path: 'elements', message: 'must NOT have more than 4 items (has 100000)' }]);
    expect(bodySize(res.body)).toBeLessThan(MAX_ERROR_BODY_BYTES);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('lists at most 20 problems, and says how many more there are', async () => {
    const input: Record<string, unknown> = { prompt: 'x' };
    for (let i = 0; i < 5_000; i++) input[`unknown_${i}`] = i;
    const res = await post(`${api.url}/v1/jobs/submit`, account.apiKey, { model: 'pixelforge/forge-pro/text-to-image', input });
    expect(res.status).toBe(400);
    const details = res.body.error.details as { path: string; message: string }[];
    expect(details).toHaveLength(21);
    expect(details[0]).toEqual({ path: 'unknown_0', message: 'is not an allowed field' });
    expect(details[20]).toEqual({ path: '', message: '4980 more problems not listed' });
    expect(bodySize(res.body)).toBeLessThan(MAX_ERROR_BODY_BYTES);
  });

  it('caps zod problems in the message and the details too', async () => {
    const res = await post(`${api.url}/v1/jobs/submit`, account.apiKey, {
      model: 'pixelforge/forge-pro/text-to-image',
      input: { prompt: 'x' },
      webhookUrl: 'https://example.com/h',
      webhookEvents: Array.from({ length: 50_000 }, (_, i) => `job.nope${i}`),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.length).toBeLessThanOrEqual(21);
    expect(bodySize(res.body)).toBeLessThan(MAX_ERROR_BODY_BYTES);
  });
});

describe('control characters in input text', () => {
  it('are refused at submit, naming the field; tabs and newlines are fine', async () => {
    const refused = await post(`${api.url}/v1/jobs/estimate`, account.apiKey, {
      model: 'pixelforge/forge-pro/text-to-image',
      input: { prompt: 'a bell \u0007 rings' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'INVALID_INPUT',
      details: [{ path: 'prompt', message: 'must not contain control characters (U+0007)' }],
    });
    const fine = await post(`${api.url}/v1/jobs/estimate`, account.apiKey, {
      model: 'pixelforge/forge-pro/text-to-image',
      input: { prompt: 'line one\n\tline two\r\n' },
    });
    expect(fine.status).toBe(200);
  });
});

describe('deeply nested JSON', () => {
  it('answers 400 VALIDATION_ERROR for nesting past the limit, before anything walks it', async () => {
    const depth = 20_000;
    const body = `{"model":"m","input":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const headers = { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' };
    const res = await request(`${api.url}/v1/jobs/submit`, { method: 'POST', headers, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(/nested more than 64 levels/);
  });

  it('accepts ordinary nesting', async () => {
    const input = { prompt: 'x', extra: JSON.parse(`${'['.repeat(30)}${']'.repeat(30)}`) };
    const res = await post(`${api.url}/v1/jobs/estimate`, account.apiKey, { model: 'pixelforge/forge-pro/text-to-image', input });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: 'extra', message: 'is not an allowed field' }]);
  });
});
