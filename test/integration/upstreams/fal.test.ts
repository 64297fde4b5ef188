/**
 * The fal adapter, and through it the official @fal-ai/client, against the fake fal
 * (test/support/upstreams/fal.ts): every seeded model from our input to its located, downloaded outputs;
 * fal's documented errors in our codes; cancel; files; webhook verification. No database, no Temporal.
 */
import { createHash, generateKeyPairSync, sign as signWith } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { validateInput } from '../../../src/domain/inputValidation';
import { failureOf } from '../../support/providerFailure';
import { createFalAdapter, FAL_JWKS_URL, falJwksUrl, redirectToOrigin } from '../../../src/providers/upstreams/fal';
import { mapInput, prepareFiles } from '../../../src/providers/inputMapping';
import { locateOutputs } from '../../../src/outputs/storing/outputPaths';
import { CallbackRejected, type CallbackRequest, type InputFile, type GenerationRef, type GenerationSnapshot } from '../../../src/providers/types';
import type { UpstreamAdapter, UpstreamMapping } from '../../../src/providers/upstreams/types';
import { startFalFake, type FalFake } from '../../support/upstreams/fal';
import { samplePng } from '../../support/upstreams/media';

interface ModelEntry {
  slug: string;
  versions: { inputSchema: string; upstream: UpstreamMapping }[];
}

const MODELS = JSON.parse(readFileSync(path.join(REPO_ROOT, 'catalog', 'models', 'fal.json'), 'utf8')) as ModelEntry[];

function model(slug: string): { route: UpstreamMapping; schema: object } {
  const version = MODELS.find((m) => m.slug === slug)!.versions[0];
  return { route: version.upstream, schema: JSON.parse(readFileSync(path.join(REPO_ROOT, 'catalog', version.inputSchema), 'utf8')) as object };
}

const FLUX = model('fal/flux-dev/text-to-image');
const KLING = model('fal/kling-v2.1/image-to-video');
const ELEMENTS = model('fal/kling-elements/image-to-video-elements');

/** URLs of uploads of ours (reachable only through our API); any other URL is external. */
const OWN_SCENE = 'https://api.genmedia.test/v1/files/file_scene/content';
const OWN_HERO = 'https://api.genmedia.test/v1/files/file_hero/content';
const EXTERNAL = 'https://images.example.com/dog.png';

const signal = () => new AbortController().signal;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const deadline = () => new Date(Date.now() + 600_000);

let fake: FalFake;
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
  return { url: `http://127.0.0.1:${port}/v1/upstreams/fal/callback`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function inputFile(url: string): InputFile {
  const own = url === OWN_SCENE || url === OWN_HERO;
  return {
    url,
    own,
    async read() {
      if (!own) throw new Error('an external file is never read for fal');
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

async function submit(route: UpstreamMapping, input: Record<string, unknown>, callbackUrl?: string, using = adapter): Promise<GenerationSnapshot> {
  return using.submit({ jobId: `job_${Math.random().toString(36).slice(2)}`, mapping: route, input, deadline: deadline(), ...(callbackUrl ? { callbackUrl } : {}) }, signal());
}

/** Polls every 300 ms until the generation ends; every snapshot seen. */
async function untilFinished(ref: GenerationRef): Promise<GenerationSnapshot[]> {
  const seen: GenerationSnapshot[] = [];
  for (let i = 0; i < 50; i++) {
    const snapshot = await adapter.status(ref, signal());
    seen.push(snapshot);
    if (snapshot.state === 'succeeded' || snapshot.state === 'failed' || snapshot.state === 'cancelled') return seen;
    await pause(300);
  }
  throw new Error(`request ${ref.id} never finished`);
}


async function webhookFor(requestId: string): Promise<CallbackRequest> {
  for (let i = 0; i < 40; i++) {
    const found = receiver.received.find((r) => r.headers['x-fal-webhook-request-id'] === requestId);
    if (found) return found;
    await pause(100);
  }
  throw new Error(`no webhook for ${requestId}`);
}

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

function postsTo(endpoint: string): number {
  return fake.requests.filter((r) => r.method === 'POST' && r.url.split('?')[0] === `/${endpoint}`).length;
}

beforeAll(async () => {
  png = await samplePng();
  fake = await startFalFake();
  receiver = await startReceiver();
  adapter = createFalAdapter({ env: { ...fake.env, FAL_ADMIN_KEY: fake.adminKey } });
});

afterAll(async () => {
  await receiver?.close();
  await fake?.close();
});

describe('fal adapter: seeded models', () => {
  it("runs FLUX.1 [dev]: queued, running with fal's logs, succeeded with PNGs, cost and a signed webhook", async () => {
    const input = await upstreamInput(FLUX, { prompt: 'a lighthouse at dusk', size: 'landscape_16_9', num_images: '2', seed: 7 });
    expect(input).toEqual({ prompt: 'a lighthouse at dusk', image_size: 'landscape_16_9', num_images: 2, seed: 7, output_format: 'png', enable_safety_checker: true });

    const first = await submit(FLUX.route, input, receiver.url);
    expect(first).toMatchObject({ id: expect.any(String), state: 'queued', stage: 'IN_QUEUE', queuePosition: 0 });
    const sent = fake.falRequests().find((r) => r.id === first.id)!;
    expect(sent).toMatchObject({ endpoint: 'fal-ai/flux/dev', input, webhook: receiver.url });
    expect(Number(sent.headers['x-fal-request-timeout'])).toBeGreaterThan(500);
    expect(sent.headers.authorization).toBe(`Key ${fake.apiKey}`);

    const seen = [first, ...(await untilFinished({ id: first.id, mapping: FLUX.route }))];
    const states = seen.map((s) => s.state).filter((state, i, all) => state !== all[i - 1]);
    expect(states).toEqual(['queued', 'running', 'succeeded']);
    expect(seen.length).toBeLessThanOrEqual(6);
    expect(seen.find((s) => s.state === 'running')?.stage).toBe('Generating: 50%');
    const done = seen.at(-1)!;
    // 2 images at fal's US$0.025 each, in micro-cents (US$1 = 1,000,000).
    expect(done.upstreamCostMicroCents).toBe(50_000);

    const outputs = locateOutputs(done.result, FLUX.route.outputs, FLUX.route.outputContentType);
    expect(outputs).toHaveLength(2);
    for (const output of outputs) {
      expect(output.kind).toBe('url');
      const meta = await sharp(await download((output as { url: string }).url)).metadata();
      expect(meta).toMatchObject({ format: 'png', width: 64, height: 48 });
    }

    const webhook = await webhookFor(first.id);
    const verified = await adapter.verifyCallback!(webhook, signal());
    expect(verified).toEqual({ upstreamId: first.id, callbackId: `${first.id}:${webhook.headers['x-fal-webhook-timestamp']}`, state: 'succeeded' });
  });

  it('runs Kling 2.1 image-to-video: our upload goes to fal storage first, the result is an MP4', async () => {
    const input = await upstreamInput(KLING, { prompt: 'waves roll in', image_url: OWN_SCENE, duration: '10', cfg_scale: 0.7 });
    const stored = fake.uploads().get(input.image_url as string);
    expect(stored?.data.equals(png)).toBe(true);
    expect(stored?.contentType).toBe('image/png');
    expect(input).toEqual({ prompt: 'waves roll in', image_url: expect.stringMatching(`^${fake.url}/files/uploads/`), duration: '10', cfg_scale: 0.7 });

    const first = await submit(KLING.route, input);
    expect(fake.falRequests().find((r) => r.id === first.id)).toMatchObject({ endpoint: 'fal-ai/kling-video/v2.1/standard/image-to-video' });
    const done = (await untilFinished({ id: first.id, mapping: KLING.route })).at(-1)!;
    expect(done.state).toBe('succeeded');
    expect(done.upstreamCostMicroCents).toBe(500_000);
    const [video] = locateOutputs(done.result, KLING.route.outputs);
    const bytes = await download((video as { url: string }).url);
    expect(bytes.toString('ascii', 4, 8)).toBe('ftyp');
  });

  it('runs Kling 1.6 Elements: the scene first, then one image per element, externals passed as they are', async () => {
    const input = await upstreamInput(ELEMENTS, {
      prompt: 'a dog and a hero meet on the beach',
      image_url: OWN_SCENE,
      elements: [
        { characterImages: [EXTERNAL], type: 'animal', name: 'Rex' },
        { characterImages: [OWN_HERO], type: 'character', name: 'Ada' },
      ],
      aspect_ratio: '9:16',
    });
    const urls = input.input_image_urls as string[];
    expect(urls).toHaveLength(3);
    expect(urls[0]).toMatch(`${fake.url}/files/uploads/`);
    expect(urls[0]).toContain('scene.png');
    expect(urls[1]).toBe(EXTERNAL);
    expect(urls[2]).toContain('hero.png');
    expect(input).toMatchObject({ prompt: 'a dog and a hero meet on the beach', duration: '5', aspect_ratio: '9:16' });
    expect(input).not.toHaveProperty('elements');

    const first = await submit(ELEMENTS.route, input);
    const done = (await untilFinished({ id: first.id, mapping: ELEMENTS.route })).at(-1)!;
    expect(done.state).toBe('succeeded');
    const [video] = locateOutputs(done.result, ELEMENTS.route.outputs);
    expect((await download((video as { url: string }).url)).toString('ascii', 4, 8)).toBe('ftyp');
  });

  it('caps the elements input at the four reference images Kling Elements takes', () => {
    const element = (url: string) => ({ characterImages: [url], type: 'object', name: 'thing' });
    const base = { prompt: 'p', image_url: OWN_SCENE };
    expect(validateInput(ELEMENTS.schema, { ...base, elements: [element(EXTERNAL), element(EXTERNAL), element(EXTERNAL)] }).ok).toBe(true);
    expect(validateInput(ELEMENTS.schema, { ...base, elements: [element(EXTERNAL), element(EXTERNAL), element(EXTERNAL), element(EXTERNAL)] }).ok).toBe(false);
    expect(validateInput(ELEMENTS.schema, { ...base, elements: [{ characterImages: [EXTERNAL, EXTERNAL], type: 'object', name: 'x' }] }).ok).toBe(false);
    expect(validateInput(ELEMENTS.schema, { ...base, elements: [element(EXTERNAL)], voice: 'male' }).ok).toBe(false);
  });
});

describe('fal adapter: files', () => {
  it("uploads an own file with the client's storage upload and returns fal's URL", async () => {
    const url = (await adapter.prepareFile(inputFile(OWN_HERO), signal())) as string;
    expect(url).toMatch(new RegExp(`^${fake.url}/files/uploads/[0-9a-f]+/hero\\.png$`));
    expect((await download(url)).equals(png)).toBe(true);
    const initiate = fake.requests.filter((r) => r.url.startsWith('/storage/upload/initiate')).at(-1)!;
    expect(JSON.parse(initiate.body)).toEqual({ content_type: 'image/png', file_name: 'hero.png' });
  });

  it('passes an external URL as it is, without reading or uploading it', async () => {
    const uploads = fake.uploads().size;
    expect(await adapter.prepareFile(inputFile(EXTERNAL), signal())).toBe(EXTERNAL);
    expect(fake.uploads().size).toBe(uploads);
  });
});

describe('fal adapter: errors in our codes', () => {
  it('maps a refused key to PROVIDER_AUTH_FAILED without showing the key', async () => {
    const wrongKey = 'c0ffee00-0000-4000-8000-000000000000:0123456789abcdef';
    const wrong = createFalAdapter({ env: { ...fake.env, FAL_KEY: wrongKey } });
    const error = await failureOf(submit(FLUX.route, { prompt: 'x' }, undefined, wrong));
    expect(error).toMatchObject({ code: 'PROVIDER_AUTH_FAILED', retryable: false });
    expect(error.message).toContain('401');
    expect(error.message).not.toContain(wrongKey);
    expect(error.message).not.toContain(fake.apiKey);
  });

  it('refuses to start without FAL_KEY', () => {
    expect(() => createFalAdapter({ env: { FAL_BASE_URL: fake.url } })).toThrow('FAL_KEY is not set');
  });

  it('maps 429 to PROVIDER_RATE_LIMITED with Retry-After, and the client does not retry the paid request', async () => {
    const paid = fake.paidSubmissions();
    const posts = postsTo('fal-ai/flux/dev');
    const error = await failureOf(submit(FLUX.route, { prompt: 'busy [upstream:rate-limit]' }));
    expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true, retryAfterSeconds: 1 });
    expect(postsTo('fal-ai/flux/dev') - posts).toBe(1);
    expect(fake.paidSubmissions()).toBe(paid);
    await submit(FLUX.route, { prompt: 'busy [upstream:rate-limit]' });
    expect(fake.paidSubmissions()).toBe(paid + 1);
  });

  it("maps a 422 validation answer to PROVIDER_REJECTED_INPUT with fal's detail", async () => {
    const error = await failureOf(submit(FLUX.route, { prompt: 'x [upstream:invalid]' }));
    expect(error).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    expect(error.message).toContain('field required');

    const five = Array.from({ length: 5 }, () => EXTERNAL);
    const tooMany = await failureOf(submit(ELEMENTS.route, { prompt: 'x', input_image_urls: five }));
    expect(tooMany).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT' });
    expect(tooMany.message).toContain('sequence_too_long');
  });

  it('maps a content-policy refusal of a video to CONTENT_POLICY_VIOLATION', async () => {
    const input = await upstreamInput(KLING, { prompt: 'forbidden [upstream:content-policy]', image_url: EXTERNAL });
    const first = await submit(KLING.route, input);
    const done = (await untilFinished({ id: first.id, mapping: KLING.route })).at(-1)!;
    expect(done).toMatchObject({ state: 'failed', stage: 'COMPLETED' });
    expect(done.error).toMatchObject({ code: 'CONTENT_POLICY_VIOLATION', retryable: false });
    expect(done.upstreamCostMicroCents).toBeUndefined();
  });

  it("fails images FLUX's safety checker flagged with CONTENT_POLICY_VIOLATION", async () => {
    const first = await submit(FLUX.route, { prompt: 'forbidden [upstream:content-policy]', num_images: 1 });
    const done = (await untilFinished({ id: first.id, mapping: FLUX.route })).at(-1)!;
    expect(done).toMatchObject({ state: 'failed' });
    expect(done.error).toMatchObject({ code: 'CONTENT_POLICY_VIOLATION', retryable: false });
  });

  it('maps a generation fal reports failed to PROVIDER_JOB_FAILED, and sends an ERROR webhook', async () => {
    const first = await submit(FLUX.route, { prompt: 'doomed [upstream:fail]' }, receiver.url);
    const done = (await untilFinished({ id: first.id, mapping: FLUX.route })).at(-1)!;
    expect(done).toMatchObject({ state: 'failed' });
    expect(done.error).toMatchObject({ code: 'PROVIDER_JOB_FAILED', retryable: false });
    expect(done.error!.message).toContain('runner_server_error');
    const verified = await adapter.verifyCallback!(await webhookFor(first.id), signal());
    expect(verified.state).toBe('failed');
  });

  it('maps 5xx to PROVIDER_UNAVAILABLE, sent once', async () => {
    const posts = postsTo('fal-ai/flux/dev');
    fake.injectNext({ status: 503, body: { detail: 'runner_scheduling_failure' }, headers: { 'x-fal-error-type': 'runner_scheduling_failure' } });
    expect(await failureOf(submit(FLUX.route, { prompt: 'x' }))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
    expect(postsTo('fal-ai/flux/dev') - posts).toBe(1);

    const first = await submit(FLUX.route, { prompt: 'x' });
    fake.injectNext({ status: 500, body: { detail: [{ loc: ['body'], msg: 'Internal server error', type: 'internal_server_error' }] } });
    expect(await failureOf(adapter.status({ id: first.id, mapping: FLUX.route }, signal()))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
  });

  it('treats a 503 while reading a finished result as a failed read, not a failed generation', async () => {
    const first = await submit(FLUX.route, { prompt: 'x' });
    await pause(800);
    fake.injectNext({ status: 200, body: { status: 'COMPLETED', request_id: first.id, logs: [] } });
    fake.injectNext({ status: 503, body: 'Service Unavailable' });
    expect(await failureOf(adapter.status({ id: first.id, mapping: FLUX.route }, signal()))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
    expect((await adapter.status({ id: first.id, mapping: FLUX.route }, signal())).state).toBe('succeeded');
  });

  it('maps a request that outlives requestTimeoutMs to PROVIDER_TIMEOUT, and a 504 too', async () => {
    const impatient = createFalAdapter({ env: fake.env, requestTimeoutMs: 300 });
    fake.injectNext({ status: 200, body: {}, delayMs: 1_500 });
    expect(await failureOf(submit(FLUX.route, { prompt: 'x' }, undefined, impatient))).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
    fake.injectNext({ status: 504, body: { detail: 'Request timed out', error_type: 'request_timeout' }, headers: { 'x-fal-error-type': 'request_timeout' } });
    expect(await failureOf(submit(FLUX.route, { prompt: 'x' }))).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
  });

  it('tells a connection refused (nothing sent) from one that broke after the paid request went out', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const nowhere = createFalAdapter({ env: { ...fake.env, FAL_BASE_URL: `http://127.0.0.1:${port}` } });
    expect(await failureOf(submit(FLUX.route, { prompt: 'x' }, undefined, nowhere))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });

    fake.injectNext({ status: 200, body: {}, hangUp: true });
    const lost = await failureOf(submit(FLUX.route, { prompt: 'x' }));
    expect(lost).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
    expect(lost.message).toContain('before fal answered');

    const first = await submit(FLUX.route, { prompt: 'x' });
    fake.injectNext({ status: 200, body: {}, hangUp: true });
    expect(await failureOf(adapter.status({ id: first.id, mapping: FLUX.route }, signal()))).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
  });

  it('maps a request fal does not know to PROVIDER_UNAVAILABLE (lost)', async () => {
    const error = await failureOf(adapter.status({ id: '00000000-0000-4000-8000-000000000000', mapping: FLUX.route }, signal()));
    expect(error).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
  });

  it('rejects with the abort reason when the signal fires', async () => {
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    controller.abort(reason);
    await expect(adapter.submit({ jobId: 'job_x', mapping: FLUX.route, input: { prompt: 'x' }, deadline: deadline() }, controller.signal)).rejects.toBe(reason);
  });
});

describe('fal adapter: cancel', () => {
  it('cancels a running generation, which then reads as cancelled', async () => {
    const first = await submit(FLUX.route, { prompt: 'long [upstream:slow]' }, receiver.url);
    const ref = { id: first.id, mapping: FLUX.route };
    const cancels = fake.cancellations();
    await adapter.cancel(ref, signal());
    expect(fake.cancellations()).toBe(cancels + 1);
    const after = await adapter.status(ref, signal());
    expect(after).toMatchObject({ state: 'cancelled' });
    expect(after.error).toMatchObject({ code: 'PROVIDER_CANCELLED' });
    // Already over: nothing to stop, no error.
    await adapter.cancel(ref, signal());
  });

  it('does not throw for a finished or an unknown generation', async () => {
    const first = await submit(FLUX.route, { prompt: 'quick' });
    await untilFinished({ id: first.id, mapping: FLUX.route });
    await expect(adapter.cancel({ id: first.id, mapping: FLUX.route }, signal())).resolves.toBeUndefined();
    await expect(adapter.cancel({ id: '00000000-0000-4000-8000-000000000000', mapping: FLUX.route }, signal())).resolves.toBeUndefined();
  });
});

describe('fal adapter: webhook verification', () => {
  const body = (requestId: string) => JSON.stringify({ request_id: requestId, gateway_request_id: requestId, status: 'OK', payload: { images: [] } });
  const delivery = (raw: string, headers: Record<string, string>): CallbackRequest => ({
    headers: { 'content-type': 'application/json', ...headers },
    rawBody: Buffer.from(raw),
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("accepts a delivery signed by a key of fal's JWKS, with request id and timestamp as its id", async () => {
    const raw = body('req-1');
    const headers = fake.sign('req-1', raw);
    const verified = await adapter.verifyCallback!(delivery(raw, headers), signal());
    expect(verified).toEqual({ upstreamId: 'req-1', callbackId: `req-1:${headers['x-fal-webhook-timestamp']}`, state: 'succeeded' });
  });

  it('refuses a forged body, a foreign key, a malformed signature and an unsigned delivery', async () => {
    const raw = body('req-2');
    const headers = fake.sign('req-2', raw);
    const reject = (request: CallbackRequest) => expect(adapter.verifyCallback!(request, signal())).rejects.toBeInstanceOf(CallbackRejected);
    await reject(delivery(raw.replace('"OK"', '"ERROR"'), headers));
    await reject(delivery(raw, { ...headers, 'x-fal-webhook-request-id': 'req-3' }));
    const foreign = generateKeyPairSync('ed25519').privateKey;
    const digest = createHash('sha256').update(raw).digest('hex');
    const message = Buffer.from(`req-2\n${headers['x-fal-webhook-user-id']}\n${headers['x-fal-webhook-timestamp']}\n${digest}`);
    await reject(delivery(raw, { ...headers, 'x-fal-webhook-signature': signWith(null, message, foreign).toString('hex') }));
    await reject(delivery(raw, { ...headers, 'x-fal-webhook-signature': 'zz' }));
    await reject({ headers: { 'content-type': 'application/json' }, rawBody: Buffer.from(raw) });
    const { 'x-fal-webhook-user-id': _dropped, ...withoutUser } = headers;
    await reject(delivery(raw, withoutUser));
  });

  it('refuses a timestamp more than 5 minutes away, either way', async () => {
    const raw = body('req-4');
    const now = Math.floor(Date.now() / 1000);
    await expect(adapter.verifyCallback!(delivery(raw, fake.sign('req-4', raw, now - 330)), signal())).rejects.toBeInstanceOf(CallbackRejected);
    await expect(adapter.verifyCallback!(delivery(raw, fake.sign('req-4', raw, now + 330)), signal())).rejects.toBeInstanceOf(CallbackRejected);
    await expect(adapter.verifyCallback!(delivery(raw, fake.sign('req-4', raw, now - 270)), signal())).resolves.toMatchObject({ upstreamId: 'req-4' });
  });

  it('caches the JWKS and fetches it again for an unknown key, at most once a minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const fresh = createFalAdapter({ env: fake.env });
    const fetches = fake.jwksFetches();
    const verify = (id: string) => {
      const raw = body(id);
      return fresh.verifyCallback!(delivery(raw, fake.sign(id, raw)), signal());
    };
    await verify('a');
    await verify('b');
    expect(fake.jwksFetches()).toBe(fetches + 1);

    fake.rotateKey();
    await expect(verify('c')).rejects.toBeInstanceOf(CallbackRejected);
    expect(fake.jwksFetches()).toBe(fetches + 1);

    vi.setSystemTime(Date.now() + 61_000);
    await expect(verify('d')).resolves.toMatchObject({ upstreamId: 'd' });
    expect(fake.jwksFetches()).toBe(fetches + 2);
    await verify('e');
    expect(fake.jwksFetches()).toBe(fetches + 2);
  });

  it('refuses a delivery fal signed for another fal account, without looking at the JWKS', async () => {
    const fresh = createFalAdapter({ env: fake.env });
    const fetches = fake.jwksFetches();
    const raw = body('req-5');
    const foreign = fake.sign('req-5', raw, undefined, 'f00dfeed-0000-4000-8000-000000000000');
    await expect(fresh.verifyCallback!(delivery(raw, foreign), signal())).rejects.toThrow(/not our fal account/);
    expect(fake.jwksFetches()).toBe(fetches);
    await expect(fresh.verifyCallback!(delivery(raw, fake.sign('req-5', raw)), signal())).resolves.toMatchObject({ upstreamId: 'req-5' });
  });

  it('asks for no webhooks and takes none without FAL_USER_ID: fal jobs are polled', async () => {
    const { FAL_USER_ID: _unset, ...env } = fake.env;
    const unbound = createFalAdapter({ env });
    expect(unbound.verifyCallback).toBeUndefined();
  });

  it('while the JWKS cannot be fetched, fetches it at most once per 30 s, however many callbacks come', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const fresh = createFalAdapter({ env: fake.env });
    const fetches = fake.jwksFetches();
    const forged = (id: string) => {
      const raw = body(id);
      const headers = fake.sign(id, raw);
      return fresh.verifyCallback!(delivery(raw.replace('"OK"', '"ERROR"'), headers), signal());
    };
    fake.jwksDown = true;
    try {
      for (const id of ['f1', 'f2', 'f3', 'f4', 'f5']) {
        const refused = await forged(id).catch((e: unknown) => e);
        // Not a rejection: without keys nothing can be told apart, so the route answers 503 and fal sends it again.
        expect(refused).toBeInstanceOf(Error);
        expect(refused).not.toBeInstanceOf(CallbackRejected);
      }
      expect(fake.jwksFetches()).toBe(fetches + 1);
      vi.setSystemTime(Date.now() + 31_000);
      await forged('f6').catch(() => undefined);
      expect(fake.jwksFetches()).toBe(fetches + 2);
    } finally {
      fake.jwksDown = false;
    }
    vi.setSystemTime(Date.now() + 31_000);
    const raw = body('g1');
    await expect(fresh.verifyCallback!(delivery(raw, fake.sign('g1', raw)), signal())).resolves.toMatchObject({ upstreamId: 'g1' });
    expect(fake.jwksFetches()).toBe(fetches + 3);
  });

  it('keeps the keys it has when a refresh fails: a forged callback is refused (401), not a 503', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const fresh = createFalAdapter({ env: fake.env });
    const raw = body('k1');
    await fresh.verifyCallback!(delivery(raw, fake.sign('k1', raw)), signal());
    const fetches = fake.jwksFetches();
    fake.jwksDown = true;
    try {
      vi.setSystemTime(Date.now() + 61_000);
      const forged = body('k2');
      await expect(fresh.verifyCallback!(delivery(forged.replace('"OK"', '"ERROR"'), fake.sign('k2', forged)), signal())).rejects.toBeInstanceOf(CallbackRejected);
      await expect(fresh.verifyCallback!(delivery(forged.replace('"OK"', '"ERROR"'), fake.sign('k2', forged)), signal())).rejects.toBeInstanceOf(CallbackRejected);
      expect(fake.jwksFetches()).toBe(fetches + 1);
      await expect(fresh.verifyCallback!(delivery(forged, fake.sign('k2', forged)), signal())).resolves.toMatchObject({ upstreamId: 'k2' });
    } finally {
      fake.jwksDown = false;
    }
  });

  it('finds the JWKS at FAL_JWKS_URL, else under FAL_BASE_URL, else at fal', () => {
    expect(falJwksUrl({ FAL_JWKS_URL: 'https://keys.example.com/jwks.json', FAL_BASE_URL: 'http://x' })).toBe('https://keys.example.com/jwks.json');
    expect(falJwksUrl({ FAL_BASE_URL: 'http://gateway.test/' })).toBe('http://gateway.test/.well-known/jwks.json');
    expect(falJwksUrl({})).toBe(FAL_JWKS_URL);
  });
});

describe('fal adapter: origin override', () => {
  it('sends every fal host to FAL_BASE_URL with the path kept, and nothing else', () => {
    const origin = 'http://127.0.0.1:9999';
    expect(redirectToOrigin('https://queue.fal.run/fal-ai/flux/dev?fal_webhook=x', origin)).toBe(`${origin}/fal-ai/flux/dev?fal_webhook=x`);
    expect(redirectToOrigin('https://rest.fal.ai/storage/upload/initiate?storage_type=fal-cdn-v3', origin)).toBe(`${origin}/storage/upload/initiate?storage_type=fal-cdn-v3`);
    expect(redirectToOrigin('https://rest.alpha.fal.ai/.well-known/jwks.json', origin)).toBe(`${origin}/.well-known/jwks.json`);
    expect(redirectToOrigin('https://v3.fal.media/files/upload/abc', origin)).toBe(`${origin}/files/upload/abc`);
    expect(redirectToOrigin('https://storage.googleapis.com/bucket/x', origin)).toBe('https://storage.googleapis.com/bucket/x');
    expect(redirectToOrigin('https://notfal.run/x', origin)).toBe('https://notfal.run/x');
    expect(redirectToOrigin('https://queue.fal.run/x', undefined)).toBe('https://queue.fal.run/x');
  });

  it('reports no cost without an ADMIN key', async () => {
    const plain = createFalAdapter({ env: fake.env });
    const lookups = fake.requests.filter((r) => r.url.startsWith('/v1/models/billing-events')).length;
    const first = await submit(FLUX.route, { prompt: 'x' }, undefined, plain);
    await pause(800);
    const done = await plain.status({ id: first.id, mapping: FLUX.route }, signal());
    expect(done.state).toBe('succeeded');
    expect(done.upstreamCostMicroCents).toBeUndefined();
    expect(fake.requests.filter((r) => r.url.startsWith('/v1/models/billing-events')).length).toBe(lookups);
  });
});
