/**
 * The Google adapter, and through it the official `@google/genai` SDK, against the fake Gemini API
 * (test/support/upstreams/google.ts): the API version of every call, the seeded image model from our input to its
 * located image and cost, and Google's documented refusals in our codes (a 429's RetryInfo, a blocked prompt, a
 * shut-down model). No database, no Temporal.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { validateInput } from '../../../src/domain/inputValidation';
import { mapInput } from '../../../src/providers/inputMapping';
import { locateOutputs } from '../../../src/outputs/storing/outputPaths';
import { failureOf } from '../../support/providerFailure';
import { createGoogleAdapter, imageCostOf, retryDelayOf } from '../../../src/providers/upstreams/google';
import type { UpstreamAdapter, UpstreamMapping } from '../../../src/providers/upstreams/types';
import { startGoogleFake, type GoogleFake } from '../../support/upstreams/google';

interface ModelEntry {
  slug: string;
  versions: { versionId: string; status: string; inputSchema: string; upstream: UpstreamMapping }[];
}

const MODELS = JSON.parse(readFileSync(path.join(REPO_ROOT, 'catalog', 'models', 'google.json'), 'utf8')) as ModelEntry[];

/** The version a job without `version` gets: the newest active one. */
function current(slug: string): { route: UpstreamMapping; schema: object } {
  const version = MODELS.find((m) => m.slug === slug)!.versions.find((v) => v.status === 'active')!;
  return { route: version.upstream, schema: JSON.parse(readFileSync(path.join(REPO_ROOT, 'catalog', version.inputSchema), 'utf8')) as object };
}

const IMAGE = current('google/gemini-2.5-flash-image/text-to-image');
/** A Veo route of the catalog's shape on a Veo model the fake still serves (the catalog's own are shut down). */
const VEO: UpstreamMapping = { model: 'veo-3.1-fast-generate-001', operation: 'predictLongRunning', input: {}, outputs: ['generateVideoResponse.generatedSamples[].video.uri'] };

const signal = () => AbortSignal.timeout(20_000);
const deadline = () => new Date(Date.now() + 600_000);

let fake: GoogleFake;
let adapter: UpstreamAdapter;

beforeAll(async () => {
  fake = await startGoogleFake();
  adapter = createGoogleAdapter({ env: fake.env, requestTimeoutMs: 10_000 });
});
afterAll(() => fake?.close());

function imageInput(prompt: string): Record<string, unknown> {
  const valid = validateInput(IMAGE.schema, { prompt });
  if (!valid.ok) throw new Error(`invalid input: ${JSON.stringify(valid.errors)}`);
  return mapInput(IMAGE.route.input, valid.value) as Record<string, unknown>;
}

const submitImage = (prompt: string, using = adapter) =>
  using.submit({ jobId: `job_${Math.random().toString(36).slice(2)}`, mapping: IMAGE.route, input: imageInput(prompt), deadline: deadline() }, signal());

const submitVideo = (prompt: string) =>
  adapter.submit({ jobId: `job_${Math.random().toString(36).slice(2)}`, mapping: VEO, input: { instances: [{ prompt }], parameters: { aspectRatio: '16:9' } }, deadline: deadline() }, signal());


/** The path of the last request the fake received for `method`. */
function lastPathOf(method: string): string {
  return new URL([...fake.requests].reverse().find((r) => r.url.includes(`:${method}`))!.url, fake.url).pathname;
}

describe('Google adapter: the API version', () => {
  it('sends image generation to v1beta, where Google documents it and where the Veo calls go', async () => {
    await submitImage('a lighthouse at dusk');
    expect(lastPathOf('generateContent')).toBe(`/v1beta/models/${IMAGE.route.model}:generateContent`);
    await submitVideo('a lighthouse at dusk');
    expect(lastPathOf('predictLongRunning')).toBe(`/v1beta/models/${VEO.model}:predictLongRunning`);
  });

  it('keeps v1beta whatever GOOGLE_GENAI_API_VERSION the worker environment holds', async () => {
    const saved = process.env.GOOGLE_GENAI_API_VERSION;
    process.env.GOOGLE_GENAI_API_VERSION = 'v1';
    try {
      await submitImage('a lighthouse at dawn', createGoogleAdapter({ env: fake.env, requestTimeoutMs: 10_000 }));
    } finally {
      if (saved === undefined) delete process.env.GOOGLE_GENAI_API_VERSION;
      else process.env.GOOGLE_GENAI_API_VERSION = saved;
    }
    expect(lastPathOf('generateContent')).toMatch(/^\/v1beta\//);
  });
});

describe('Google adapter: the seeded image model', () => {
  it('generates in one paid request: succeeded at once, the image located, the cost from the usage', async () => {
    const before = fake.paidSubmissions();
    const snapshot = await submitImage('a lighthouse at dusk, waves below');
    expect(snapshot.state).toBe('succeeded');
    expect(fake.paidSubmissions() - before).toBe(1);
    expect(locateOutputs(snapshot.result, IMAGE.route.outputs)).toHaveLength(1);
    expect(snapshot.upstreamCostMicroCents).toBeGreaterThan(0);
  });

  it('counts the prompt tokens at the input price: a long prompt costs more upstream than a short one', async () => {
    const short = await submitImage('a fox');
    // Near the 2,500 characters our schema takes: some 600 tokens more.
    const long = await submitImage(`a fox ${'in a snowy birch forest at first light, '.repeat(55)}`);
    const usage = (snapshot: typeof short) => (snapshot.result as { usageMetadata: { promptTokenCount: number; candidatesTokenCount: number } }).usageMetadata;
    expect(usage(long).promptTokenCount).toBeGreaterThan(usage(short).promptTokenCount + 500);
    expect(usage(long).candidatesTokenCount).toBe(usage(short).candidatesTokenCount);
    expect(long.upstreamCostMicroCents).toBeGreaterThan(short.upstreamCostMicroCents!);
  });
});

describe('Google adapter: documented refusals', () => {
  it("waits the RetryInfo retryDelay of a 429 (the only place Google gives it), paying nothing", async () => {
    const before = fake.paidSubmissions();
    fake.retryDelay = '7s';
    expect(await failureOf(submitImage('a harbour [upstream:rate-limit]'))).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true, retryAfterSeconds: 7 });
    expect(await failureOf(submitVideo('a harbour at night [upstream:rate-limit]'))).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true, retryAfterSeconds: 7 });
    expect(fake.paidSubmissions()).toBe(before);
    expect((await submitImage('a harbour [upstream:rate-limit]')).state).toBe('succeeded');
  });

  it('rounds a fractional retryDelay up to whole seconds', async () => {
    fake.retryDelay = '1.5s';
    try {
      expect(await failureOf(submitImage('a quay [upstream:rate-limit]'))).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryAfterSeconds: 2 });
    } finally {
      fake.retryDelay = '7s';
    }
  });

  it.each(['OTHER', 'SAFETY', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'IMAGE_SAFETY', 'BLOCKED_REASON_UNSPECIFIED'])(
    'maps a prompt blocked with blockReason %s to CONTENT_POLICY_VIOLATION, not retryable',
    async (reason) => {
      fake.blockReason = reason;
      try {
        const error = await failureOf(submitImage('something refused [upstream:content-policy]'));
        expect(error).toMatchObject({ code: 'CONTENT_POLICY_VIOLATION', retryable: false });
        expect(error.message).toContain(reason);
      } finally {
        fake.blockReason = 'PROHIBITED_CONTENT';
      }
    },
  );

  it('refuses a shut-down model with the 404 Google answers, as PROVIDER_REJECTED_INPUT', async () => {
    const retired = { ...IMAGE.route, model: 'gemini-2.5-flash-image' };
    const error = await failureOf(adapter.submit({ jobId: 'job_retired', mapping: retired, input: imageInput('a fox'), deadline: deadline() }, signal()));
    expect(error).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    expect(error.message).toMatch(/not found/);
  });
});

describe('Google adapter: cost and wait arithmetic', () => {
  it("prices the prompt tokens at the input price and the image tokens at the output price, for the models it knows", () => {
    // Gemini 2.5 Flash Image: US$0.30 and US$30 per 1M tokens; Gemini 3.1 Flash Image: US$0.50 and US$60.
    expect(imageCostOf('gemini-2.5-flash-image', { promptTokenCount: 1000, candidatesTokenCount: 1290 })).toBe(300 + 38_700);
    expect(imageCostOf('gemini-3.1-flash-image', { promptTokenCount: 12, candidatesTokenCount: 1120 })).toBe(6 + 67_200);
    expect(imageCostOf('gemini-3.1-flash-image', { promptTokenCount: 5, candidatesTokenCount: 1120 })).toBe(67_203);
    expect(imageCostOf('some-other-model', { promptTokenCount: 12, candidatesTokenCount: 1120 })).toBeUndefined();
    expect(imageCostOf('gemini-3.1-flash-image', { promptTokenCount: 12 })).toBeUndefined();
  });

  it('reads RetryInfo.retryDelay as a protobuf Duration, ignoring anything else', () => {
    const body = (retryDelay: unknown, type = 'type.googleapis.com/google.rpc.RetryInfo') => ({ error: { code: 429, details: [{ '@type': type, retryDelay }] } });
    expect(retryDelayOf(body('7s'))).toBe(7);
    expect(retryDelayOf(body('0.000000001s'))).toBe(1);
    expect(retryDelayOf(body('42.5s'))).toBe(43);
    expect(retryDelayOf(body('7'))).toBeUndefined();
    expect(retryDelayOf(body(7))).toBeUndefined();
    expect(retryDelayOf(body('7s', 'type.googleapis.com/google.rpc.Help'))).toBeUndefined();
    expect(retryDelayOf(undefined)).toBeUndefined();
  });
});
