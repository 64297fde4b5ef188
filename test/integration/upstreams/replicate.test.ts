/**
 * The Replicate adapter, and through it the official `replicate` SDK, against the fake Replicate API
 * (test/support/upstreams/replicate.ts): every seeded model from our input to its located, downloaded outputs;
 * Replicate's documented errors and prediction states in our codes; Cancel-After; cancel; files; webhook
 * verification. No database, no Temporal.
 */
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { validateInput } from '../../../src/domain/inputValidation';
import { ProviderError } from '../../../src/providers/types';
import { failureOf } from '../../support/providerFailure';
import { mapInput, prepareFiles } from '../../../src/providers/inputMapping';
import { locateOutputs } from '../../../src/outputs/storing/outputPaths';
import { cancelAfterOf, createReplicateAdapter, progressOf, replicateBaseUrl } from '../../../src/providers/upstreams/replicate';
import { CallbackRejected, type CallbackRequest, type InputFile, type GenerationRef, type GenerationSnapshot } from '../../../src/providers/types';
import type { UpstreamAdapter, UpstreamMapping } from '../../../src/providers/upstreams/types';
import { samplePng } from '../../support/upstreams/media';
import { startReplicateFake, type ReplicateFake } from '../../support/upstreams/replicate';

interface ModelEntry {
  slug: string;
  versions: { inputSchema: string; upstream: UpstreamMapping }[];
}

const MODELS = JSON.parse(readFileSync(path.join(REPO_ROOT, 'catalog', 'models', 'replicate.json'), 'utf8')) as ModelEntry[];

function model(slug: string): { route: UpstreamMapping; schema: object } {
  const version = MODELS.find((m) => m.slug === slug)!.versions[0];
  return { route: version.upstream, schema: JSON.parse(readFileSync(path.join(REPO_ROOT, 'catalog', version.inputSchema), 'utf8')) as object };
}

const FLUX = model('replicate/flux-schnell/text-to-image');
const KLING = model('replicate/kling-v2.1/image-to-video');
const SEEDANCE = model('replicate/seedance-1-lite/image-to-video-elements');
const SDXL_VERSION = '39ed52f2a78e934b3ba6e2a89f5b1c712de7dfea535525255b1aa35c5565e08b';

/** URLs of uploads of ours (reachable only through our API); any other URL is external. */
const OWN_SCENE = 'https://api.genmedia.test/v1/files/file_scene/content';
const OWN_HERO = 'https://api.genmedia.test/v1/files/file_hero/content';
const EXTERNAL = 'https://images.example.com/dog.png';

const signal = () => new AbortController().signal;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const deadline = () => new Date(Date.now() + 600_000);

let fake: ReplicateFake;
let adapter: UpstreamAdapter;
let receiver: { url: string; received: CallbackRequest[]; close(): Promise<void> };
let png: Buffer;

/** Our webhook endpoint: records each delivery as the callback route hands it to the adapter. */
async function startReceiver(): Promise<typeof receiver> {
  const received: CallbackRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
      received.push({ headers, rawBody: Buffer.concat(chunks) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/upstreams/replicate/callback`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function inputFile(url: string): InputFile {
  const own = url === OWN_SCENE || url === OWN_HERO;
  return {
    url,
    own,
    async read() {
      if (!own) throw new Error('an external file is never read for Replicate');
      return { data: png, contentType: 'image/png', filename: url === OWN_SCENE ? 'scene.png' : 'hero.png' };
    },
  };
}

/** Our validated input → the upstream's input with its files handed over, as the generic layer does it. */
async function upstreamInput(target: { route: UpstreamMapping; schema: object }, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const valid = validateInput(target.schema, input);
  if (!valid.ok) throw new Error(`invalid input: ${JSON.stringify(valid.errors)}`);
  const mapped = mapInput(target.route.input, valid.value);
  return (await prepareFiles(mapped, (url) => adapter.prepareFile(inputFile(url), signal()))) as Record<string, unknown>;
}

async function submit(route: UpstreamMapping, input: Record<string, unknown>, callbackUrl?: string, using = adapter, until = deadline()): Promise<GenerationSnapshot> {
  return using.submit({ jobId: `job_${Math.random().toString(36).slice(2)}`, mapping: route, input, deadline: until, ...(callbackUrl ? { callbackUrl } : {}) }, signal());
}

/** Polls every 300 ms until the prediction ends; every snapshot seen. */
async function untilFinished(ref: GenerationRef): Promise<GenerationSnapshot[]> {
  const seen: GenerationSnapshot[] = [];
  for (let i = 0; i < 50; i++) {
    const snapshot = await adapter.status(ref, signal());
    seen.push(snapshot);
    if (snapshot.state === 'succeeded' || snapshot.state === 'failed' || snapshot.state === 'cancelled') return seen;
    await pause(300);
  }
  throw new Error(`prediction ${ref.id} never finished`);
}


/** The webhooks received about a prediction, once `count` have arrived. */
async function webhooksFor(predictionId: string, count: number): Promise<CallbackRequest[]> {
  for (let i = 0; i < 40; i++) {
    const found = receiver.received.filter((r) => (JSON.parse(r.rawBody.toString('utf8')) as { id?: string }).id === predictionId);
    if (found.length >= count) return found;
    await pause(100);
  }
  throw new Error(`fewer than ${count} webhooks for ${predictionId}`);
}

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url, { headers: adapter.outputHeaders?.(url) });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

function requestsTo(method: string, pathname: string): number {
  return fake.requests.filter((r) => r.method === method && r.url.split('?')[0] === pathname).length;
}

/** A prediction object as `predictions.get` documents it, for forced answers. */
function prediction(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    id: 'gm3qorzdhgbfurvjtvhg6dckhu',
    model: 'black-forest-labs/flux-schnell',
    version: 'hidden',
    input: { prompt: 'x' },
    logs: '',
    output: null,
    data_removed: false,
    error: null,
    status: 'processing',
    created_at: '2026-11-22T10:00:00.000Z',
    urls: { get: 'x', cancel: 'x', web: 'x' },
    ...fields,
  };
}

beforeAll(async () => {
  png = await samplePng();
  fake = await startReplicateFake();
  receiver = await startReceiver();
  adapter = createReplicateAdapter({ env: fake.env });
});

afterEach(() => {
  fake.clearInjections();
  vi.useRealTimers();
});

afterAll(async () => {
  await receiver?.close();
  await fake?.close();
});

describe('Replicate adapter: seeded models', () => {
  it('runs FLUX.1 [schnell]: starting, processing with progress, succeeded with PNGs, and signed start and completed webhooks', async () => {
    const input = await upstreamInput(FLUX, { prompt: 'a lighthouse at dusk', size: 'landscape_16_9', num_images: '2', seed: 7 });
    expect(input).toEqual({ prompt: 'a lighthouse at dusk', num_outputs: 2, aspect_ratio: '16:9', seed: 7, output_format: 'png' });

    const first = await submit(FLUX.route, input, receiver.url);
    expect(first).toMatchObject({ id: expect.any(String), state: 'queued', stage: 'starting' });
    const create = fake.requests.filter((r) => r.method === 'POST' && r.url === '/v1/models/black-forest-labs/flux-schnell/predictions').at(-1)!;
    expect(create.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(JSON.parse(create.body)).toEqual({ input, webhook: receiver.url, webhook_events_filter: ['start', 'completed'] });
    const cancelAfter = Number(/^(\d+)s$/.exec(String(create.headers['cancel-after']))?.[1]);
    expect(cancelAfter).toBeGreaterThan(590);
    expect(cancelAfter).toBeLessThanOrEqual(600);

    const seen = [first, ...(await untilFinished({ id: first.id, mapping: FLUX.route }))];
    const states = seen.map((s) => s.state).filter((state, i, all) => state !== all[i - 1]);
    expect(states).toEqual(['queued', 'running', 'succeeded']);
    expect(seen.length).toBeLessThanOrEqual(6);
    const running = seen.find((s) => s.state === 'running')!;
    expect(running.progress).toBeGreaterThanOrEqual(0);
    expect(running.progress).toBeLessThan(100);
    expect(running.stage).toMatch(/^ *\d+%\|.*\| \d+\/20 /);

    const done = seen.at(-1)!;
    expect(done.stage).toMatch(/^succeeded \(predict_time \d+\.\d s\)$/);
    expect(done.upstreamCostMicroCents).toBeUndefined();
    const outputs = locateOutputs(done.result, FLUX.route.outputs, FLUX.route.outputContentType);
    expect(outputs).toHaveLength(2);
    for (const output of outputs) {
      expect(output.kind).toBe('url');
      const url = (output as { url: string }).url;
      expect(adapter.outputHeaders!(url)).toBeUndefined();
      const meta = await sharp(await download(url)).metadata();
      expect(meta).toMatchObject({ format: 'png', width: 64, height: 48 });
    }

    const webhooks = await webhooksFor(first.id, 2);
    const verified = await Promise.all(webhooks.map((w) => adapter.verifyCallback!(w, signal())));
    expect(verified.map((v) => v.state)).toEqual(['running', 'succeeded']);
    expect(verified.map((v) => v.callbackId)).toEqual(webhooks.map((w) => w.headers['webhook-id']));
    expect(new Set(verified.map((v) => v.callbackId)).size).toBe(2);
    expect(verified.every((v) => v.upstreamId === first.id)).toBe(true);
  });

  it('runs Kling 2.1: our upload goes through the files API and its URL is the start image; the result is one MP4', async () => {
    const input = await upstreamInput(KLING, { prompt: 'waves roll in', image_url: OWN_SCENE, duration: '10', quality: 'pro', negative_prompt: 'blur' });
    const fileId = /\/v1\/files\/([^/]+)$/.exec(String(input.start_image))?.[1];
    expect(input).toEqual({ prompt: 'waves roll in', start_image: `${fake.url}/v1/files/${fileId}`, duration: 10, mode: 'pro', negative_prompt: 'blur' });
    const stored = fake.files().get(fileId!)!;
    expect(stored.data.equals(png)).toBe(true);
    expect(stored).toMatchObject({ filename: 'scene.png', contentType: 'image/png' });

    const first = await submit(KLING.route, input);
    expect(requestsTo('POST', '/v1/models/kwaivgi/kling-v2.1/predictions')).toBeGreaterThan(0);
    const done = (await untilFinished({ id: first.id, mapping: KLING.route })).at(-1)!;
    expect(done.state).toBe('succeeded');
    expect(typeof done.result).toBe('string');
    const [video] = locateOutputs(done.result, KLING.route.outputs);
    expect((await download((video as { url: string }).url)).toString('ascii', 4, 8)).toBe('ftyp');
  });

  it('maps the std quality and the 5 s default to Kling\'s own names', async () => {
    expect(await upstreamInput(KLING, { prompt: 'p', image_url: EXTERNAL })).toEqual({ prompt: 'p', start_image: EXTERNAL, duration: 5, mode: 'standard' });
  });

  it('runs Seedance 1 Lite with the scene first, then one image per element, externals passed as they are', async () => {
    const input = await upstreamInput(SEEDANCE, {
      prompt: 'a dog and a hero meet on the beach',
      image_url: OWN_SCENE,
      elements: [
        { characterImages: [EXTERNAL], type: 'animal', name: 'Rex' },
        { characterImages: [OWN_HERO], type: 'character', name: 'Ada' },
      ],
      aspect_ratio: '9:16',
      resolution: '480p',
    });
    const refs = input.reference_images as string[];
    expect(refs).toHaveLength(3);
    expect(refs[0]).toMatch(`${fake.url}/v1/files/`);
    expect(refs[1]).toBe(EXTERNAL);
    expect(refs[2]).toMatch(`${fake.url}/v1/files/`);
    expect(fake.files().get(refs[2].split('/').pop()!)?.filename).toBe('hero.png');
    expect(input).toEqual({ prompt: 'a dog and a hero meet on the beach', reference_images: refs, duration: 5, resolution: '480p', aspect_ratio: '9:16', camera_fixed: false });

    const first = await submit(SEEDANCE.route, input);
    const done = (await untilFinished({ id: first.id, mapping: SEEDANCE.route })).at(-1)!;
    expect(done.state).toBe('succeeded');
    const [video] = locateOutputs(done.result, SEEDANCE.route.outputs);
    expect((await download((video as { url: string }).url)).toString('ascii', 4, 8)).toBe('ftyp');
  });

  it('caps the elements input at the four reference images Seedance takes, and offers no 1080p', () => {
    const element = (url: string) => ({ characterImages: [url], type: 'object', name: 'thing' });
    const base = { prompt: 'p', image_url: OWN_SCENE };
    expect(validateInput(SEEDANCE.schema, { ...base, elements: [element(EXTERNAL), element(EXTERNAL), element(EXTERNAL)] }).ok).toBe(true);
    expect(validateInput(SEEDANCE.schema, { ...base, elements: [element(EXTERNAL), element(EXTERNAL), element(EXTERNAL), element(EXTERNAL)] }).ok).toBe(false);
    expect(validateInput(SEEDANCE.schema, { ...base, elements: [{ characterImages: [EXTERNAL, EXTERNAL] }] }).ok).toBe(false);
    expect(validateInput(SEEDANCE.schema, { ...base, elements: [element(EXTERNAL)], resolution: '1080p' }).ok).toBe(false);
    expect(validateInput(SEEDANCE.schema, { ...base, elements: [element(EXTERNAL)], duration: 5 }).ok).toBe(false);
  });

  it('runs a version when the route names one: POST /v1/predictions with the version id', async () => {
    const route: UpstreamMapping = { model: `stability-ai/sdxl:${SDXL_VERSION}`, input: {}, outputs: ['.'] };
    const posts = requestsTo('POST', '/v1/predictions');
    const first = await submit(route, { prompt: 'a fox' });
    expect(requestsTo('POST', '/v1/predictions')).toBe(posts + 1);
    const body = JSON.parse(fake.requests.filter((r) => r.url === '/v1/predictions').at(-1)!.body) as Record<string, unknown>;
    expect(body).toEqual({ version: SDXL_VERSION, input: { prompt: 'a fox' } });
    const done = (await untilFinished({ id: first.id, mapping: route })).at(-1)!;
    expect(locateOutputs(done.result, route.outputs)).toHaveLength(1);
  });
});

describe('Replicate adapter: files', () => {
  it("uploads an own file with the SDK's files.create and returns the file's API URL", async () => {
    const url = (await adapter.prepareFile(inputFile(OWN_HERO), signal())) as string;
    expect(url).toMatch(new RegExp(`^${fake.url}/v1/files/[0-9a-f]+$`));
    const upload = fake.requests.filter((r) => r.method === 'POST' && r.url === '/v1/files').at(-1)!;
    expect(upload.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(fake.files().get(url.split('/').pop()!)).toMatchObject({ filename: 'hero.png', contentType: 'image/png', metadata: {} });
  });

  it('passes an external URL as it is, without reading or uploading it', async () => {
    const uploads = fake.files().size;
    expect(await adapter.prepareFile(inputFile(EXTERNAL), signal())).toBe(EXTERNAL);
    expect(fake.files().size).toBe(uploads);
  });

  it('maps the documented 413 of a file over 100 MB to PROVIDER_REJECTED_INPUT', async () => {
    fake.injectNext({ status: 413, body: { detail: 'Files must be less than 100MB in size' } });
    const error = await failureOf(adapter.prepareFile(inputFile(OWN_HERO), signal()));
    expect(error).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    expect(error.message).toContain('Files must be less than 100MB in size');
  });
});

describe('Replicate adapter: errors in our codes', () => {
  it('maps a refused token to PROVIDER_AUTH_FAILED without showing either token', async () => {
    const wrongToken = 'r8_NotTheRightTokenAtAll0000000000000000';
    const wrong = createReplicateAdapter({ env: { ...fake.env, REPLICATE_API_TOKEN: wrongToken } });
    const error = await failureOf(submit(FLUX.route, { prompt: 'x' }, undefined, wrong));
    expect(error).toMatchObject({ code: 'PROVIDER_AUTH_FAILED', retryable: false });
    expect(error.message).toContain('401');
    expect(error.message).toContain('You did not pass a valid authentication token');
    expect(error.message).not.toContain(wrongToken);
    expect(error.message).not.toContain(fake.apiKey);
  });

  it('maps 402 (no credit left) to PROVIDER_AUTH_FAILED: the account, not the input, is the problem', async () => {
    fake.injectNext({ status: 402, body: { title: 'Insufficient credit', detail: 'You have insufficient credit to run this model.', status: 402 } });
    const error = await failureOf(submit(FLUX.route, { prompt: 'x' }));
    expect(error).toMatchObject({ code: 'PROVIDER_AUTH_FAILED', retryable: false });
    expect(error.message).toContain('insufficient credit');
  });

  it('refuses to start without REPLICATE_API_TOKEN', () => {
    expect(() => createReplicateAdapter({ env: { REPLICATE_BASE_URL: fake.url } })).toThrow('REPLICATE_API_TOKEN is not set');
  });

  it('maps 429 to PROVIDER_RATE_LIMITED with Retry-After, and the SDK does not send the paid request again', async () => {
    const paid = fake.paidSubmissions();
    const posts = requestsTo('POST', '/v1/models/black-forest-labs/flux-schnell/predictions');
    const error = await failureOf(submit(FLUX.route, { prompt: 'busy [upstream:rate-limit]' }));
    expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true, retryAfterSeconds: 1 });
    expect(requestsTo('POST', '/v1/models/black-forest-labs/flux-schnell/predictions') - posts).toBe(1);
    expect(fake.paidSubmissions()).toBe(paid);
    await submit(FLUX.route, { prompt: 'busy [upstream:rate-limit]' });
    expect(fake.paidSubmissions()).toBe(paid + 1);
  });

  it('reads the wait from the documented 429 body when there is no Retry-After', async () => {
    fake.injectNext({ status: 429, body: { detail: 'Request was throttled. Your rate limit resets in ~30s.' } });
    const error = await failureOf(submit(FLUX.route, { prompt: 'x' }));
    expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true, retryAfterSeconds: 30 });
  });

  it("maps a 422 validation answer to PROVIDER_REJECTED_INPUT with Replicate's detail, paying nothing", async () => {
    const paid = fake.paidSubmissions();
    const error = await failureOf(submit(FLUX.route, { prompt: 'x [upstream:invalid]' }));
    expect(error).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    expect(error.message).toContain('input.prompt: Invalid type');

    const five = Array.from({ length: 5 }, () => EXTERNAL);
    const tooMany = await failureOf(submit(SEEDANCE.route, { prompt: 'x', reference_images: five }));
    expect(tooMany).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT' });
    expect(tooMany.message).toContain('input.reference_images');
    expect(fake.paidSubmissions()).toBe(paid);
  });

  it('maps a prediction failed as sensitive (E005) to CONTENT_POLICY_VIOLATION', async () => {
    const first = await submit(FLUX.route, { prompt: 'forbidden [upstream:content-policy]' });
    const done = (await untilFinished({ id: first.id, mapping: FLUX.route })).at(-1)!;
    expect(done).toMatchObject({ state: 'failed', stage: 'failed' });
    expect(done.error).toMatchObject({ code: 'CONTENT_POLICY_VIOLATION', retryable: false });
    expect(done.error!.message).toContain('(E005)');
  });

  it('maps another failed prediction to PROVIDER_JOB_FAILED, and its completed webhook says failed', async () => {
    const first = await submit(FLUX.route, { prompt: 'doomed [upstream:fail]' }, receiver.url);
    const done = (await untilFinished({ id: first.id, mapping: FLUX.route })).at(-1)!;
    expect(done.error).toMatchObject({ code: 'PROVIDER_JOB_FAILED', retryable: false });
    expect(done.error!.message).toContain('(E1000)');
    const webhooks = await webhooksFor(first.id, 2);
    expect((await adapter.verifyCallback!(webhooks.at(-1)!, signal())).state).toBe('failed');
  });

  it('maps 5xx on create to PROVIDER_UNAVAILABLE, sent once', async () => {
    const posts = requestsTo('POST', '/v1/models/black-forest-labs/flux-schnell/predictions');
    fake.injectNext({ status: 503, body: { detail: 'Internal server error' } });
    const error = await failureOf(submit(FLUX.route, { prompt: 'x' }));
    expect(error).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
    expect(error.message).toContain('503');
    expect(requestsTo('POST', '/v1/models/black-forest-labs/flux-schnell/predictions') - posts).toBe(1);
  });

  it('lets the SDK retry a status read that answered 5xx, and maps a lasting 5xx to PROVIDER_UNAVAILABLE', async () => {
    const first = await submit(FLUX.route, { prompt: 'x' });
    const ref = { id: first.id, mapping: FLUX.route };
    const reads = () => requestsTo('GET', `/v1/predictions/${first.id}`);

    const before = reads();
    fake.injectNext({ status: 502, body: { detail: 'Bad gateway' } });
    expect((await adapter.status(ref, signal())).id).toBe(first.id);
    expect(reads() - before).toBe(2);

    fake.injectNext({ status: 500, body: { detail: 'Internal server error' }, times: 20 });
    expect(await failureOf(adapter.status(ref, signal()))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
  });

  it('maps a request that outlives requestTimeoutMs to PROVIDER_TIMEOUT without sending it again, and a 504 too', async () => {
    const impatient = createReplicateAdapter({ env: fake.env, requestTimeoutMs: 300 });
    const posts = requestsTo('POST', '/v1/models/black-forest-labs/flux-schnell/predictions');
    fake.injectNext({ delayMs: 1_500 });
    expect(await failureOf(submit(FLUX.route, { prompt: 'x' }, undefined, impatient))).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
    expect(requestsTo('POST', '/v1/models/black-forest-labs/flux-schnell/predictions') - posts).toBe(1);

    fake.injectNext({ status: 504, body: { detail: 'Gateway timeout' } });
    expect(await failureOf(submit(FLUX.route, { prompt: 'x' }))).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
  });

  it('tells a refused connection (nothing sent) from one that broke after the paid request went out', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const nowhere = createReplicateAdapter({ env: { ...fake.env, REPLICATE_BASE_URL: `http://127.0.0.1:${port}` } });
    expect(await failureOf(submit(FLUX.route, { prompt: 'x' }, undefined, nowhere))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });

    const posts = requestsTo('POST', '/v1/models/black-forest-labs/flux-schnell/predictions');
    fake.injectNext({ hangUp: true });
    expect(await failureOf(submit(FLUX.route, { prompt: 'x' }))).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
    expect(requestsTo('POST', '/v1/models/black-forest-labs/flux-schnell/predictions') - posts).toBe(1);

    const first = await submit(FLUX.route, { prompt: 'x' });
    fake.injectNext({ hangUp: true });
    expect(await failureOf(adapter.status({ id: first.id, mapping: FLUX.route }, signal()))).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
  });

  it('maps a prediction Replicate does not know to PROVIDER_UNAVAILABLE (lost)', async () => {
    const error = await failureOf(adapter.status({ id: 'nosuchprediction0000000000', mapping: FLUX.route }, signal()));
    expect(error).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
  });

  it('rejects with the abort reason when the signal fires', async () => {
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    controller.abort(reason);
    await expect(adapter.submit({ jobId: 'job_x', mapping: FLUX.route, input: { prompt: 'x' }, deadline: deadline() }, controller.signal)).rejects.toBe(reason);
    await expect(adapter.status({ id: 'x', mapping: FLUX.route }, controller.signal)).rejects.toBe(reason);
  });
});

describe('Replicate adapter: deadlines and final states', () => {
  it('sends Cancel-After as the whole seconds left until the deadline, at least the documented 5 s', async () => {
    const now = Date.now();
    expect(cancelAfterOf(new Date(now + 90_200), now)).toBe('91s');
    expect(cancelAfterOf(new Date(now + 3_600_000), now)).toBe('3600s');
    expect(cancelAfterOf(new Date(now - 1_000), now)).toBe('5s');

    const first = await submit(FLUX.route, { prompt: 'x' }, undefined, adapter, new Date(Date.now() + 120_000));
    const sent = fake.predictions().find((p) => p.id === first.id)!;
    expect(sent.cancelAfter).toMatch(/^1[12]\ds$/);
    expect(sent.deadlineAt! - sent.createdAt).toBeGreaterThan(110_000);
  });

  it('maps aborted (the deadline passed before it started) and canceled at the deadline to PROVIDER_TIMEOUT', async () => {
    const ref = { id: 'gm3qorzdhgbfurvjtvhg6dckhu', mapping: FLUX.route };
    fake.injectNext({ status: 200, body: prediction({ status: 'aborted', deadline: '2026-11-22T10:00:05.000Z', completed_at: '2026-11-22T10:00:05.010Z' }) });
    const aborted = await adapter.status(ref, signal());
    expect(aborted).toMatchObject({ state: 'failed', stage: 'aborted', error: { code: 'PROVIDER_TIMEOUT' } });
    expect(aborted.error!.message).toContain('not charged');

    fake.injectNext({ status: 200, body: prediction({ status: 'canceled', deadline: '2026-11-22T10:01:00.000Z', completed_at: '2026-11-22T10:01:00.200Z' }) });
    expect(await adapter.status(ref, signal())).toMatchObject({ state: 'failed', stage: 'canceled', error: { code: 'PROVIDER_TIMEOUT' } });

    fake.injectNext({ status: 200, body: prediction({ status: 'canceled', deadline: '2026-11-22T10:01:00.000Z', completed_at: '2026-11-22T10:00:20.000Z' }) });
    expect(await adapter.status(ref, signal())).toMatchObject({ state: 'cancelled', error: { code: 'PROVIDER_CANCELLED' } });
  });

  it('maps a start timeout (E6716) to PROVIDER_TIMEOUT and a succeeded prediction whose output was removed to PROVIDER_JOB_FAILED', async () => {
    const ref = { id: 'gm3qorzdhgbfurvjtvhg6dckhu', mapping: FLUX.route };
    fake.injectNext({ status: 200, body: prediction({ status: 'failed', error: 'Timeout starting prediction (E6716)' }) });
    expect(await adapter.status(ref, signal())).toMatchObject({ state: 'failed', error: { code: 'PROVIDER_TIMEOUT', retryable: false } });
    fake.injectNext({ status: 200, body: prediction({ status: 'succeeded', output: null, data_removed: true }) });
    expect(await adapter.status(ref, signal())).toMatchObject({ state: 'failed', error: { code: 'PROVIDER_JOB_FAILED' } });
  });

  it('reads progress from the last progress bar in the logs, with the SDK', () => {
    expect(progressOf('Using seed: 1\n 25%|██▌       | 1/4 [00:01<00:03]\n 75%|███████▌  | 3/4 [00:03<00:01]')).toBe(75);
    expect(progressOf('100%|██████████| 4/4 [00:04<00:00,  1.00it/s]')).toBe(100);
    expect(progressOf('no bar here')).toBeUndefined();
    expect(progressOf(undefined)).toBeUndefined();
  });
});

describe('Replicate adapter: cancel', () => {
  it('cancels a running prediction, which then reads as cancelled and sends its completed webhook', async () => {
    const first = await submit(FLUX.route, { prompt: 'long [upstream:slow]' }, receiver.url);
    const ref = { id: first.id, mapping: FLUX.route };
    const cancels = fake.cancellations();
    await adapter.cancel(ref, signal());
    expect(fake.cancellations()).toBe(cancels + 1);
    expect(requestsTo('POST', `/v1/predictions/${first.id}/cancel`)).toBe(1);
    const after = await adapter.status(ref, signal());
    expect(after).toMatchObject({ state: 'cancelled', stage: 'canceled', error: { code: 'PROVIDER_CANCELLED' } });
    const [completed] = await webhooksFor(first.id, 1);
    expect(await adapter.verifyCallback!(completed, signal())).toMatchObject({ upstreamId: first.id, state: 'cancelled' });
    await expect(adapter.cancel(ref, signal())).resolves.toBeUndefined();
  });

  it('does not throw for a finished or an unknown prediction', async () => {
    const first = await submit(FLUX.route, { prompt: 'quick' });
    await untilFinished({ id: first.id, mapping: FLUX.route });
    await expect(adapter.cancel({ id: first.id, mapping: FLUX.route }, signal())).resolves.toBeUndefined();
    expect((await adapter.status({ id: first.id, mapping: FLUX.route }, signal())).state).toBe('succeeded');
    await expect(adapter.cancel({ id: 'nosuchprediction0000000000', mapping: FLUX.route }, signal())).resolves.toBeUndefined();
  });

  it('still reports other failures of a cancel', async () => {
    fake.injectNext({ status: 503, body: { detail: 'Internal server error' } });
    expect(await failureOf(adapter.cancel({ id: 'x', mapping: FLUX.route }, signal()))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
  });
});

describe('Replicate adapter: webhook verification', () => {
  const body = (id: string, status = 'succeeded') => JSON.stringify(prediction({ id, status, output: ['https://replicate.delivery/xezq/a/out-0.png'] }));
  const delivery = (raw: string, headers: Record<string, string>): CallbackRequest => ({
    headers: { 'content-type': 'application/json', ...headers },
    rawBody: Buffer.from(raw),
  });
  const rejected = (request: CallbackRequest, using = adapter) => expect(using.verifyCallback!(request, signal())).rejects.toBeInstanceOf(CallbackRejected);

  it('accepts a delivery signed with the account secret, with webhook-id as its id', async () => {
    const raw = body('p1');
    const headers = fake.sign(raw, 'msg_2LQHHW0E9k6mnfRQrHtmxEtBGbm');
    expect(await adapter.verifyCallback!(delivery(raw, headers), signal())).toEqual({ upstreamId: 'p1', callbackId: 'msg_2LQHHW0E9k6mnfRQrHtmxEtBGbm', state: 'succeeded' });
  });

  it('accepts a list of signatures when one of them matches (a rotated secret)', async () => {
    const raw = body('p2', 'processing');
    const headers = fake.sign(raw);
    const listed = { ...headers, 'webhook-signature': `v1,Zm9yZ2VkIHNpZ25hdHVyZSBmb3IgdGVzdGluZw== ${headers['webhook-signature']}` };
    expect(await adapter.verifyCallback!(delivery(raw, listed), signal())).toMatchObject({ upstreamId: 'p2', state: 'running' });
  });

  it('refuses a forged body, another id, a foreign secret, a malformed signature and an unsigned delivery', async () => {
    const raw = body('p3');
    const headers = fake.sign(raw);
    await rejected(delivery(raw.replace('"succeeded"', '"failed"'), headers));
    await rejected(delivery(raw, { ...headers, 'webhook-id': 'msg_other' }));
    const foreign = createReplicateAdapter({ env: { ...fake.env, REPLICATE_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } });
    await rejected(delivery(raw, headers), foreign);
    await rejected(delivery(raw, { ...headers, 'webhook-signature': 'garbage' }));
    await rejected({ headers: { 'content-type': 'application/json' }, rawBody: Buffer.from(raw) });
    const { 'webhook-timestamp': _dropped, ...withoutTimestamp } = headers;
    await rejected(delivery(raw, withoutTimestamp));
  });

  it('compares each decoded signature with ours in constant time (crypto.timingSafeEqual), never with ===', async () => {
    const raw = body('p6');
    const headers = fake.sign(raw);
    const ours = Buffer.from(headers['webhook-signature'].slice('v1,'.length), 'base64');
    const compared = vi.spyOn(crypto, 'timingSafeEqual');
    try {
      const almost = Buffer.from(ours);
      almost[almost.length - 1] ^= 1;
      const oneBitOff = { ...headers, 'webhook-signature': `v1,${almost.toString('base64')}` };
      await rejected(delivery(raw, oneBitOff));
      expect(compared).toHaveBeenCalledTimes(1);
      expect(Buffer.from(compared.mock.calls[0][0] as Uint8Array)).toEqual(almost);
      expect(Buffer.from(compared.mock.calls[0][1] as Uint8Array)).toEqual(ours);

      await expect(adapter.verifyCallback!(delivery(raw, headers), signal())).resolves.toMatchObject({ upstreamId: 'p6' });
      expect(compared).toHaveBeenCalledTimes(2);
      // A signature of another length is not ours and is not compared at all (timingSafeEqual would throw).
      await rejected(delivery(raw, { ...headers, 'webhook-signature': 'v1,c2hvcnQ=' }));
      expect(compared).toHaveBeenCalledTimes(2);
    } finally {
      compared.mockRestore();
    }
  });

  it('checks the signature over the raw bytes of the body, as they were received', async () => {
    const id = 'p7';
    // A prediction whose logs hold a byte that is not UTF-8: decoding it before the check would change what was signed.
    const raw = Buffer.concat([Buffer.from(`{"id":"${id}","status":"processing","logs":"`), Buffer.from([0xff]), Buffer.from('"}')]);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const key = Buffer.from(fake.webhookSecret.slice('whsec_'.length), 'base64');
    const signature = crypto.createHmac('sha256', key).update(`msg_raw.${timestamp}.`).update(raw).digest('base64');
    const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_raw', 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
    await expect(adapter.verifyCallback!({ headers, rawBody: raw }, signal())).resolves.toMatchObject({ upstreamId: id, state: 'running' });
  });

  it('refuses a signed body that is not a prediction', async () => {
    const raw = JSON.stringify({ hello: 'world' });
    await expect(adapter.verifyCallback!(delivery(raw, fake.sign(raw)), signal())).rejects.toThrow(/names no prediction/);
  });

  it('refuses a timestamp more than 5 minutes away, either way', async () => {
    const raw = body('p4');
    const now = Math.floor(Date.now() / 1000);
    await rejected(delivery(raw, fake.sign(raw, undefined, now - 301)));
    await rejected(delivery(raw, fake.sign(raw, undefined, now + 301)));
    await expect(adapter.verifyCallback!(delivery(raw, fake.sign(raw, undefined, now - 290)), signal())).resolves.toMatchObject({ upstreamId: 'p4' });
  });

  it("checks the SDK's published Standard Webhooks vector with REPLICATE_WEBHOOK_SECRET, fetching no secret", async () => {
    // The test vector of replicate-javascript's index.test.ts (from svix-webhooks): a valid signature over a body
    // that is not a prediction, so it passes the signature check and is refused for its body.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1614265330 * 1000);
    const configured = createReplicateAdapter({ env: { ...fake.env, REPLICATE_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } });
    const fetches = fake.secretFetches();
    const headers = { 'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp': '1614265330', 'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' };
    await expect(configured.verifyCallback!(delivery('{"test": 2432232314}', headers), signal())).rejects.toThrow(/names no prediction/);
    await expect(configured.verifyCallback!(delivery('{"test": 2432232315}', headers), signal())).rejects.toThrow(/signature does not match/);
    expect(fake.secretFetches()).toBe(fetches);
  });

  it('fetches the account secret once and keeps it; a failed fetch is not a rejection and is tried again', async () => {
    const fresh = createReplicateAdapter({ env: fake.env });
    const fetches = fake.secretFetches();
    fake.injectNext({ status: 500, body: { detail: 'Internal server error' }, times: 20 });
    const raw = body('p5');
    const failed = await fresh.verifyCallback!(delivery(raw, fake.sign(raw)), signal()).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ProviderError);
    expect(failed).not.toBeInstanceOf(CallbackRejected);
    fake.clearInjections();

    await fresh.verifyCallback!(delivery(raw, fake.sign(raw)), signal());
    await fresh.verifyCallback!(delivery(raw, fake.sign(raw)), signal());
    expect(fake.secretFetches()).toBe(fetches + 1);
    expect(requestsTo('GET', '/v1/webhooks/default/secret')).toBeGreaterThan(fake.secretFetches());
  });
});

describe('Replicate adapter: origin override', () => {
  it('appends /v1 to REPLICATE_BASE_URL once', () => {
    expect(replicateBaseUrl(undefined)).toBeUndefined();
    expect(replicateBaseUrl('http://127.0.0.1:9999')).toBe('http://127.0.0.1:9999/v1');
    expect(replicateBaseUrl('https://gateway.example.com/replicate/')).toBe('https://gateway.example.com/replicate/v1');
    expect(replicateBaseUrl('https://gateway.example.com/v1/')).toBe('https://gateway.example.com/v1');
  });

  it('works with an override that already ends in /v1', async () => {
    const withPrefix = createReplicateAdapter({ env: { ...fake.env, REPLICATE_BASE_URL: `${fake.url}/v1/` } });
    const first = await submit(FLUX.route, { prompt: 'x' }, undefined, withPrefix);
    expect(fake.predictions().some((p) => p.id === first.id)).toBe(true);
  });

  it('sends the token with downloads of API resources only, never to replicate.delivery or elsewhere', () => {
    expect(adapter.outputHeaders!(`${fake.url}/v1/files/abc`)).toEqual({ authorization: `Bearer ${fake.apiKey}` });
    expect(adapter.outputHeaders!('https://replicate.delivery/xezq/abc/out-0.png')).toBeUndefined();
    const direct = createReplicateAdapter({ env: { REPLICATE_API_TOKEN: 'r8_x' } });
    expect(direct.outputHeaders!('https://api.replicate.com/v1/files/abc')).toEqual({ authorization: 'Bearer r8_x' });
    expect(direct.outputHeaders!('https://api.replicate.com.evil.example/v1/files/abc')).toBeUndefined();
    expect(direct.outputHeaders!('https://api.replicate.com/other/abc')).toBeUndefined();
  });
});
