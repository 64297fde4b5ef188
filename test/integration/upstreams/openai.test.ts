/**
 * The OpenAI adapter, and through it the official `openai` SDK, against the fake Images API
 * (test/support/upstreams/openai.ts): every seeded model from our input to its located outputs and cost; the kept
 * answer of a synchronous generation; OpenAI's documented HTTP errors in our codes; timeouts, aborts and no SDK
 * retries of the paid request; files wrapped for the SDK. No database, no Temporal.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { validateInput } from '../../../src/domain/inputValidation';
import { failureOf } from '../../support/providerFailure';
import { mapInput, prepareFiles } from '../../../src/providers/inputMapping';
import { costOf, createOpenAIAdapter, parseResetDuration } from '../../../src/providers/upstreams/openai';
import { locateOutputs } from '../../../src/outputs/storing/outputPaths';
import type { InputFile, GenerationSnapshot } from '../../../src/providers/types';
import type { UpstreamAdapter, UpstreamMapping } from '../../../src/providers/upstreams/types';
import { samplePng } from '../../support/upstreams/media';
import { startOpenAIFake, type OpenAIFake } from '../../support/upstreams/openai';

interface ModelEntry {
  slug: string;
  versions: { status: string; inputSchema: string; upstream: UpstreamMapping }[];
}

const MODELS = JSON.parse(readFileSync(path.join(REPO_ROOT, 'catalog', 'models', 'openai.json'), 'utf8')) as ModelEntry[];

function model(slug: string): { route: UpstreamMapping; schema: Record<string, any> } {
  const version = MODELS.find((m) => m.slug === slug)!.versions[0];
  return { route: version.upstream, schema: JSON.parse(readFileSync(path.join(REPO_ROOT, 'catalog', version.inputSchema), 'utf8')) as Record<string, any> };
}

const GPT_IMAGE_2 = model('openai/gpt-image-2/text-to-image');
const GPT_IMAGE_1 = model('openai/gpt-image-1/text-to-image');

const signal = () => new AbortController().signal;
const deadline = (ms = 600_000) => new Date(Date.now() + ms);

let fake: OpenAIFake;
let adapter: UpstreamAdapter;

/** Our validated input → the upstream's input, as the generic layer makes it. */
async function upstreamInput(target: { route: UpstreamMapping; schema: object }, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const valid = validateInput(target.schema, input);
  if (!valid.ok) throw new Error(`invalid input: ${JSON.stringify(valid.errors)}`);
  const mapped = mapInput(target.route.input, valid.value);
  return (await prepareFiles(mapped, () => Promise.reject(new Error('no files in this model')))) as Record<string, unknown>;
}

async function submit(input: Record<string, unknown>, options: { using?: UpstreamAdapter; route?: UpstreamMapping; deadline?: Date; abort?: AbortSignal } = {}) {
  const route = options.route ?? GPT_IMAGE_2.route;
  const mapped = await upstreamInput({ route, schema: GPT_IMAGE_2.schema }, input);
  return (options.using ?? adapter).submit({ jobId: `job_${Math.random().toString(36).slice(2)}`, mapping: route, input: mapped, deadline: options.deadline ?? deadline() }, options.abort ?? signal());
}


/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  fake = await startOpenAIFake();
  adapter = createOpenAIAdapter({ env: fake.env, requestTimeoutMs: 5_000 });
});
afterAll(() => fake?.close());
afterEach(() => {
  fake.slowMs = 8_000;
  fake.sendRetryAfter = true;
  fake.rateLimitHit = 'requests';
  fake.sendRequestId = true;
});

describe('OpenAI adapter: seeded models', () => {
  it('seeds GPT Image 2 as the active model and keeps the shut-down GPT Image 1 deleted', () => {
    expect(MODELS.map((m) => [m.slug, m.versions.map((v) => v.status)])).toEqual([
      ['openai/gpt-image-2/text-to-image', ['active']],
      ['openai/gpt-image-1/text-to-image', ['deleted']],
    ]);
    expect(GPT_IMAGE_2.route).toMatchObject({ model: 'gpt-image-2', operation: 'images.generate', outputs: ['data[].b64_json'], outputContentType: 'image/png' });
  });

  it('generates in one paid request: succeeded at once, the images located as PNGs, the cost from the usage', async () => {
    const before = fake.paidSubmissions();
    const snapshot = await submit({ prompt: 'a lighthouse at dusk', num_images: '2', size: 'landscape_4_3', quality: 'high' });
    expect(fake.paidSubmissions() - before).toBe(1);
    expect(snapshot).toMatchObject({ state: 'succeeded', progress: 100, stage: 'completed' });
    expect(snapshot.id).toMatch(/^req_[0-9a-f]{32}$/);

    const sent = fake.generationBodies().at(-1)!;
    expect(sent).toEqual({ prompt: 'a lighthouse at dusk', n: 2, size: '1536x1024', quality: 'high', output_format: 'png', model: 'gpt-image-2', stream: false });

    const outputs = locateOutputs(snapshot.result, GPT_IMAGE_2.route.outputs, GPT_IMAGE_2.route.outputContentType);
    expect(outputs).toHaveLength(2);
    for (const output of outputs) {
      expect(output).toMatchObject({ kind: 'inline', contentType: 'image/png' });
      if (output.kind !== 'inline') throw new Error('expected inline base64');
      expect(output.data.equals(await samplePng())).toBe(true);
      expect(await sharp(output.data).metadata()).toMatchObject({ format: 'png', width: 64, height: 48 });
    }

    const { usage } = snapshot.result as { usage: { input_tokens: number; output_tokens: number } };
    expect(usage.output_tokens).toBe(2 * 5488);
    expect(snapshot.upstreamCostMicroCents).toBe(usage.input_tokens * 5 + usage.output_tokens * 30);
  });

  it('maps every size and quality our schema offers to a value OpenAI accepts', async () => {
    const sizes = GPT_IMAGE_2.schema.properties.size.enum as string[];
    const qualities = GPT_IMAGE_2.schema.properties.quality.enum as string[];
    const combinations = sizes.flatMap((size) => qualities.map((quality) => ({ size, quality })));
    const snapshots = await Promise.all(combinations.map((c) => submit({ prompt: `a kite (${c.size}, ${c.quality})`, ...c })));
    expect(snapshots.map((s) => s.state)).toEqual(combinations.map(() => 'succeeded'));
    const sent = fake.generationBodies().slice(-combinations.length);
    expect(new Set(sent.map((b) => b.size))).toEqual(new Set(['1024x1024', '1024x1536', '1536x1024']));
    expect(new Set(sent.map((b) => b.quality))).toEqual(new Set(['low', 'medium', 'high']));
  });

  it('sends the defaults of our schema: one square medium PNG', async () => {
    await submit({ prompt: 'a teapot' });
    expect(fake.generationBodies().at(-1)).toEqual({ prompt: 'a teapot', n: 1, size: '1024x1024', quality: 'medium', output_format: 'png', model: 'gpt-image-2', stream: false });
  });

  it('refuses a route with an operation it does not have, without a request', async () => {
    const requests = fake.requests.length;
    const error = await failureOf(submit({ prompt: 'a fox' }, { route: { ...GPT_IMAGE_2.route, operation: 'videos.create' } }));
    expect(error).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    expect(fake.requests.length).toBe(requests);
  });
});

describe('OpenAI adapter: a synchronous generation afterwards', () => {
  it('answers status with the kept answer, the same snapshot, without a request', async () => {
    const snapshot = await submit({ prompt: 'a windmill' });
    const requests = fake.requests.length;
    const again: GenerationSnapshot = await adapter.status({ id: snapshot.id, mapping: GPT_IMAGE_2.route }, signal());
    expect(again).toEqual(snapshot);
    expect(fake.requests.length).toBe(requests);
  });

  it('names the generation by the job and its creation time when no x-request-id comes back', async () => {
    fake.sendRequestId = false;
    const jobId = 'job_without_request_id';
    const mapped = await upstreamInput(GPT_IMAGE_2, { prompt: 'a mill' });
    const snapshot = await adapter.submit({ jobId, mapping: GPT_IMAGE_2.route, input: mapped, deadline: deadline() }, signal());
    expect(snapshot.id).toBe(`${jobId}@${(snapshot.result as { created: number }).created}`);
    expect(await adapter.status({ id: snapshot.id, mapping: GPT_IMAGE_2.route }, signal())).toBe(snapshot);
  });

  it('fails status for an answer it no longer holds (another worker, or cancelled) with PROVIDER_JOB_FAILED, not retryable', async () => {
    const unknown = await failureOf(adapter.status({ id: 'req_unknown', mapping: GPT_IMAGE_2.route }, signal()));
    expect(unknown).toMatchObject({ code: 'PROVIDER_JOB_FAILED', retryable: false });

    const snapshot = await submit({ prompt: 'a barn' });
    await adapter.cancel({ id: snapshot.id, mapping: GPT_IMAGE_2.route }, signal());
    expect(await failureOf(adapter.status({ id: snapshot.id, mapping: GPT_IMAGE_2.route }, signal()))).toMatchObject({ code: 'PROVIDER_JOB_FAILED' });
  });

  it('keeps only the latest few answers', async () => {
    const first = await submit({ prompt: 'first of many' });
    for (let i = 0; i < 4; i++) await submit({ prompt: `later ${i}` });
    expect(await failureOf(adapter.status({ id: first.id, mapping: GPT_IMAGE_2.route }, signal()))).toMatchObject({ code: 'PROVIDER_JOB_FAILED' });
  });

  it('cancels an unknown generation without a request or an error', async () => {
    const requests = fake.requests.length;
    await expect(adapter.cancel({ id: 'req_never_seen', mapping: GPT_IMAGE_2.route }, signal())).resolves.toBeUndefined();
    expect(fake.requests.length).toBe(requests);
    expect(fake.cancellations()).toBe(0);
  });

  it('takes no webhooks and needs no download headers', () => {
    expect(adapter.verifyCallback).toBeUndefined();
    expect(adapter.outputHeaders).toBeUndefined();
  });
});

describe('OpenAI adapter: documented errors', () => {
  it('refuses to start without OPENAI_API_KEY', () => {
    expect(() => createOpenAIAdapter({ env: { OPENAI_BASE_URL: fake.env.OPENAI_BASE_URL } })).toThrow('OPENAI_API_KEY is not set');
  });

  it('maps a wrong key (401) to PROVIDER_AUTH_FAILED, never quoting either key', async () => {
    const wrongKey = 'sk-proj-wrongwrongwrong1234';
    const wrong = createOpenAIAdapter({ env: { ...fake.env, OPENAI_API_KEY: wrongKey } });
    const error = await failureOf(submit({ prompt: 'a lighthouse' }, { using: wrong }));
    expect(error).toMatchObject({ code: 'PROVIDER_AUTH_FAILED', retryable: false });
    expect(error.message).not.toContain(fake.apiKey);
    expect(error.message).not.toMatch(/1234|sk-pro/);
  });

  it('maps a 403 (unsupported region) and an exhausted quota (429 insufficient_quota) to PROVIDER_AUTH_FAILED, not retried', async () => {
    fake.refuseNext('region');
    expect(await failureOf(submit({ prompt: 'a dune' }))).toMatchObject({ code: 'PROVIDER_AUTH_FAILED', retryable: false });
    fake.refuseNext('insufficient-quota');
    const quota = await failureOf(submit({ prompt: 'a dune' }));
    expect(quota).toMatchObject({ code: 'PROVIDER_AUTH_FAILED', retryable: false });
    expect(quota.message).toMatch(/quota/);
  });

  it('maps a 429 to PROVIDER_RATE_LIMITED with Retry-After, paying nothing; the next request is served', async () => {
    const before = fake.paidSubmissions();
    const requests = fake.requests.length;
    const error = await failureOf(submit({ prompt: 'a harbour [upstream:rate-limit]' }));
    expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true, retryAfterSeconds: 2 });
    expect(fake.requests.length - requests).toBe(1);
    expect(fake.paidSubmissions()).toBe(before);
    expect((await submit({ prompt: 'a harbour [upstream:rate-limit]' })).state).toBe('succeeded');
    expect(fake.paidSubmissions() - before).toBe(1);
  });

  it('takes the wait from the documented x-ratelimit-reset headers when a 429 has no Retry-After', async () => {
    fake.sendRetryAfter = false;
    const error = await failureOf(submit({ prompt: 'a quay [upstream:rate-limit]' }));
    // The request limit was hit (x-ratelimit-remaining-requests: 0): its reset, x-ratelimit-reset-requests: 3s.
    expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true, retryAfterSeconds: 3 });
  });

  it('waits for the reset of the token limit when that is the one a 429 without Retry-After reports reached', async () => {
    fake.sendRetryAfter = false;
    fake.rateLimitHit = 'tokens';
    const error = await failureOf(submit({ prompt: 'a jetty [upstream:rate-limit]' }));
    // Requests left (x-ratelimit-remaining-requests: 3), tokens not: x-ratelimit-reset-tokens: 4s, not the 24s of requests.
    expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true, retryAfterSeconds: 4 });
  });

  it('maps a safety refusal (400 moderation_blocked) to CONTENT_POLICY_VIOLATION, paying nothing', async () => {
    const before = fake.paidSubmissions();
    const error = await failureOf(submit({ prompt: 'something forbidden [upstream:content-policy]' }));
    expect(error).toMatchObject({ code: 'CONTENT_POLICY_VIOLATION', retryable: false });
    expect(error.message).toContain('moderation_blocked');
    expect(fake.paidSubmissions()).toBe(before);
  });

  it('maps validation refusals (400 invalid_value, 404 model_not_found) to PROVIDER_REJECTED_INPUT', async () => {
    const before = fake.paidSubmissions();
    const invalid = await failureOf(submit({ prompt: 'a lighthouse [upstream:invalid]' }));
    expect(invalid).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    expect(invalid.message).toContain('invalid_value');

    const badSize = { ...GPT_IMAGE_2.route, input: { ...GPT_IMAGE_2.route.input, size: '4096x4096' } };
    expect(await failureOf(submit({ prompt: 'a lighthouse' }, { route: badSize }))).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT' });

    // GPT Image 1 was shut down: its (deleted) route is refused as an unknown model.
    const shutDown = await failureOf(submit({ prompt: 'a lighthouse' }, { route: GPT_IMAGE_1.route }));
    expect(shutDown).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    expect(shutDown.message).toContain('model_not_found');
    expect(fake.paidSubmissions()).toBe(before);
  });

  it('maps 500 and 503 to PROVIDER_UNAVAILABLE and 504 to PROVIDER_TIMEOUT, retryable, each sent once (no SDK retries)', async () => {
    let requests = fake.requests.length;
    expect(await failureOf(submit({ prompt: 'a bridge [upstream:fail]' }))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
    expect(fake.requests.length - requests).toBe(1);

    requests = fake.requests.length;
    fake.refuseNext('overloaded');
    expect(await failureOf(submit({ prompt: 'a bridge' }))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
    expect(fake.requests.length - requests).toBe(1);

    fake.refuseNext('gateway-timeout');
    expect(await failureOf(submit({ prompt: 'a bridge' }))).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
  });

  it('gives a generation until the deadline, then PROVIDER_TIMEOUT (the request was paid, so it is never resent)', async () => {
    fake.slowMs = 3_000;
    const quick = createOpenAIAdapter({ env: fake.env, requestTimeoutMs: 300 });
    const before = fake.paidSubmissions();
    const requests = fake.requests.length;
    const started = Date.now();
    const error = await failureOf(submit({ prompt: 'a glacier [upstream:slow]' }, { using: quick, deadline: deadline(1_000) }));
    expect(error).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(2_900);
    expect(fake.requests.length - requests).toBe(1);
    expect(fake.paidSubmissions() - before).toBe(1);
  });

  it('waits at least one request timeout even when the deadline is closer', async () => {
    fake.slowMs = 600;
    const patient = createOpenAIAdapter({ env: fake.env, requestTimeoutMs: 2_000 });
    const snapshot = await submit({ prompt: 'a canyon [upstream:slow]' }, { using: patient, deadline: deadline(100) });
    expect(snapshot.state).toBe('succeeded');
  });

  it('maps an unreachable OpenAI to PROVIDER_UNAVAILABLE, retryable', async () => {
    const unreachable = createOpenAIAdapter({ env: { ...fake.env, OPENAI_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1` }, requestTimeoutMs: 2_000 });
    expect(await failureOf(submit({ prompt: 'a lighthouse' }, { using: unreachable }))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
  });

  it('rejects with the abort reason when the signal fires mid-generation', async () => {
    fake.slowMs = 3_000;
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    setTimeout(() => controller.abort(reason), 200);
    await expect(submit({ prompt: 'a volcano [upstream:slow]' }, { abort: controller.signal })).rejects.toBe(reason);
  });
});

describe('OpenAI adapter: client settings', () => {
  it('sends the key as a Bearer token, and the organization and project only from its own env', async () => {
    const scoped = createOpenAIAdapter({ env: { ...fake.env, OPENAI_ORG_ID: 'org-genmedia', OPENAI_PROJECT_ID: 'proj_images' } });
    await submit({ prompt: 'a greenhouse' }, { using: scoped });
    const headers = fake.requests.at(-1)!.headers;
    expect(headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(headers).toMatchObject({ 'openai-organization': 'org-genmedia', 'openai-project': 'proj_images' });

    await submit({ prompt: 'a greenhouse' });
    expect(fake.requests.at(-1)!.headers['openai-organization']).toBeUndefined();
  });
});

describe('OpenAI adapter: files', () => {
  function inputFile(url: string, own: boolean, bytes: Buffer): InputFile {
    return { url, own, read: async () => ({ data: bytes, contentType: 'image/png', filename: own ? 'scene.png' : 'dog.png' }) };
  }

  it('wraps our own upload and an external image alike as an SDK upload with its bytes, name and type', async () => {
    const png = await samplePng();
    for (const [url, own, name] of [
      ['https://api.genmedia.test/v1/files/file_scene/content', true, 'scene.png'],
      ['https://images.example.com/dog.png', false, 'dog.png'],
    ] as const) {
      const prepared = (await adapter.prepareFile(inputFile(url, own, png), signal())) as File;
      expect(prepared).toBeInstanceOf(File);
      expect(prepared).toMatchObject({ name, type: 'image/png', size: png.length });
      expect(Buffer.from(await prepared.arrayBuffer()).equals(png)).toBe(true);
    }
  });
});

describe('OpenAI adapter: cost and rate-limit arithmetic', () => {
  it('prices usage with the documented per-token rates, and only for models it knows', () => {
    const usage = { input_tokens: 120, output_tokens: 1756, total_tokens: 1876, input_tokens_details: { text_tokens: 20, image_tokens: 100 } };
    expect(costOf('gpt-image-2', usage)).toBe(20 * 5 + 100 * 8 + 1756 * 30);
    expect(costOf('gpt-image-2', { ...usage, input_tokens_details: undefined as never })).toBe(120 * 5 + 1756 * 30);
    expect(costOf('gpt-image-1', usage)).toBeUndefined();
    expect(costOf('gpt-image-2', undefined)).toBeUndefined();
  });

  it('reads the reset durations of the rate-limit headers', () => {
    expect(parseResetDuration('1s')).toBe(1);
    expect(parseResetDuration('6m0s')).toBe(360);
    expect(parseResetDuration('20ms')).toBe(1);
    expect(parseResetDuration('1h2m3.5s')).toBe(3724);
    expect(parseResetDuration('soon')).toBeUndefined();
    expect(parseResetDuration(null)).toBeUndefined();
  });
});
