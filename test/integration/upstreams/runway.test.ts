/**
 * The Runway adapter, and through it the official @runwayml/sdk, against the fake Runway API
 * (test/support/upstreams/runway.ts): every seeded model from our input to its located, downloaded outputs;
 * THROTTLED, progress and credits; Runway's documented HTTP errors and task failure codes in our codes; cancel;
 * files inline, uploaded or passed by URL. No database, no Temporal.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { validateInput } from '../../../src/domain/inputValidation';
import { failureOf } from '../../support/providerFailure';
import { mapInput, prepareFiles } from '../../../src/providers/inputMapping';
import { locateOutputs } from '../../../src/outputs/storing/outputPaths';
import { createRunwayAdapter, DATA_URI_MAX_CHARS, RUNWAY_CREDIT_MICRO_CENTS, taskFailure } from '../../../src/providers/upstreams/runway';
import type { InputFile, GenerationRef, GenerationSnapshot } from '../../../src/providers/types';
import type { UpstreamAdapter, UpstreamMapping } from '../../../src/providers/upstreams/types';
import { samplePng } from '../../support/upstreams/media';
import { RUNWAY_VERSION, startRunwayFake, type FakeTask, type RunwayFake } from '../../support/upstreams/runway';

interface ModelEntry {
  slug: string;
  versions: { inputSchema: string; upstream: UpstreamMapping }[];
}

const MODELS = JSON.parse(readFileSync(path.join(REPO_ROOT, 'catalog', 'models', 'runway.json'), 'utf8')) as ModelEntry[];

function model(slug: string): { route: UpstreamMapping; schema: object } {
  const version = MODELS.find((m) => m.slug === slug)!.versions[0];
  return { route: version.upstream, schema: JSON.parse(readFileSync(path.join(REPO_ROOT, 'catalog', version.inputSchema), 'utf8')) as object };
}

const GEN4_IMAGE = model('runway/gen4-image/text-to-image');
const GEN4_TURBO = model('runway/gen4-turbo/image-to-video');
const SEEDANCE2 = model('runway/seedance2/image-to-video-elements');

/** URLs of uploads of ours (reachable only through our API); any other URL is external. */
const OWN_SCENE = 'https://api.genmedia.test/v1/files/file_scene/content';
const OWN_HERO = 'https://api.genmedia.test/v1/files/file_hero/content';
const OWN_BIG = 'https://api.genmedia.test/v1/files/file_big/content';
const EXTERNAL = 'https://images.example.com/dog.png';
const EXTERNAL_LAMP = 'https://images.example.com/lamp.png';

const signal = () => new AbortController().signal;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const deadline = () => new Date(Date.now() + 600_000);

let fake: RunwayFake;
let adapter: UpstreamAdapter;
let png: Buffer;
/** 4 MiB: base64 makes it a data URI over Runway's 5 MB limit. */
const big = randomBytes(4 * 1024 * 1024);

function inputFile(url: string): InputFile {
  const own = [OWN_SCENE, OWN_HERO, OWN_BIG].includes(url);
  return {
    url,
    own,
    async read() {
      if (!own) throw new Error('an external file is never read for Runway');
      if (url === OWN_BIG) return { data: big, contentType: 'image/png', filename: 'big.png' };
      return { data: png, contentType: 'image/png', filename: url === OWN_SCENE ? 'scene.png' : 'hero.png' };
    },
  };
}

const dataUri = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;

/** Our validated input → the upstream's input with its files handed over, as the generic layer does it. */
async function upstreamInput(target: { route: UpstreamMapping; schema: object }, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const valid = validateInput(target.schema, input);
  if (!valid.ok) throw new Error(`invalid input: ${JSON.stringify(valid.errors)}`);
  const mapped = mapInput(target.route.input, valid.value);
  return (await prepareFiles(mapped, (url) => adapter.prepareFile(inputFile(url), signal()))) as Record<string, unknown>;
}

function submit(route: UpstreamMapping, input: Record<string, unknown>, using = adapter, abort = signal()): Promise<GenerationSnapshot> {
  return using.submit({ jobId: `job_${Math.random().toString(36).slice(2)}`, mapping: route, input, deadline: deadline() }, abort);
}

async function submitPrompt(prompt: string, using = adapter): Promise<GenerationSnapshot> {
  return submit(GEN4_IMAGE.route, await upstreamInput(GEN4_IMAGE, { prompt }), using);
}

/** Polls every 300 ms until the task ends; every snapshot seen. */
async function untilFinished(ref: GenerationRef): Promise<GenerationSnapshot[]> {
  const seen: GenerationSnapshot[] = [];
  for (let i = 0; i < 60; i++) {
    const snapshot = await adapter.status(ref, signal());
    seen.push(snapshot);
    if (snapshot.state === 'succeeded' || snapshot.state === 'failed' || snapshot.state === 'cancelled') return seen;
    await pause(300);
  }
  throw new Error(`task ${ref.id} never finished`);
}


async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** A loopback port nothing listens on (fetch itself refuses well-known "bad ports" such as 9). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function taskOf(id: string): FakeTask {
  return fake.tasks().find((task) => task.id === id)!;
}

function creates(): number {
  return fake.requests.filter((r) => r.method === 'POST' && /^\/v1\/(text_to_image|image_to_video)$/.test(r.url)).length;
}

/** Runs a task to its end and checks the located outputs are real files of the given kind. */
async function expectFinishedWithOutputs(route: UpstreamMapping, first: GenerationSnapshot, kind: 'png' | 'mp4'): Promise<GenerationSnapshot[]> {
  const seen = await untilFinished({ id: first.id, mapping: route });
  const last = seen.at(-1)!;
  expect(last, JSON.stringify(last.error)).toMatchObject({ state: 'succeeded', stage: 'SUCCEEDED' });
  const outputs = locateOutputs(last.result, route.outputs, route.outputContentType);
  expect(outputs).toHaveLength(1);
  expect(outputs[0].kind).toBe('url');
  const bytes = await download((outputs[0] as { url: string }).url);
  if (kind === 'png') expect((await sharp(bytes).metadata()).format).toBe('png');
  else expect(bytes.toString('ascii', 4, 8)).toBe('ftyp');
  return seen;
}

beforeAll(async () => {
  png = await samplePng();
  fake = await startRunwayFake();
  adapter = createRunwayAdapter({ env: fake.env, requestTimeoutMs: 10_000 });
});

afterAll(() => fake?.close());

afterEach(() => {
  fake.failureCode = 'INTERNAL.BAD_OUTPUT.CODE01';
  fake.rateLimitRetryAfter = undefined;
  fake.slowMs = 8_000;
});

describe('Runway adapter: setup', () => {
  it('refuses to start without RUNWAYML_API_SECRET', () => {
    expect(() => createRunwayAdapter({ env: { RUNWAYML_BASE_URL: fake.url } })).toThrow(/RUNWAYML_API_SECRET is not set/);
  });

  it('has no callback verification: Runway sends no webhooks', () => {
    expect(adapter.verifyCallback).toBeUndefined();
    expect(adapter.outputHeaders).toBeUndefined();
  });

  it('takes the origin override from its options, never from process.env', async () => {
    const saved = process.env.RUNWAYML_BASE_URL;
    process.env.RUNWAYML_BASE_URL = 'http://127.0.0.1:9';
    try {
      const own = createRunwayAdapter({ env: fake.env });
      expect((await submitPrompt('a quiet harbour', own)).state).toBe('queued');
    } finally {
      if (saved === undefined) delete process.env.RUNWAYML_BASE_URL;
      else process.env.RUNWAYML_BASE_URL = saved;
    }
  });
});

describe('Runway adapter: seeded models', () => {
  it('runs Gen-4 Image with tagged reference images: PENDING, RUNNING with progress, SUCCEEDED with a PNG and its credits', async () => {
    const paid = fake.paidSubmissions();
    const input = await upstreamInput(GEN4_IMAGE, {
      prompt: '@hero reading by a lighthouse',
      size: 'landscape_16_9',
      reference_images: [{ image_url: OWN_HERO, tag: 'hero' }, { image_url: EXTERNAL }],
      seed: 7,
    });
    const first = await submit(GEN4_IMAGE.route, input);
    expect(first).toEqual({ id: expect.any(String), state: 'queued', stage: 'PENDING' });
    expect(taskOf(first.id).body).toEqual({
      model: 'gen4_image',
      promptText: '@hero reading by a lighthouse',
      ratio: '1920:1080',
      referenceImages: [{ uri: dataUri(png), tag: 'hero' }, { uri: EXTERNAL }],
      seed: 7,
    });

    const seen = await expectFinishedWithOutputs(GEN4_IMAGE.route, first, 'png');
    const running = seen.filter((s) => s.state === 'running');
    expect(running.length).toBeGreaterThan(0);
    for (const s of running) expect(s).toMatchObject({ stage: 'RUNNING', progress: expect.any(Number) });
    expect(running.every((s) => s.progress! >= 0 && s.progress! < 100)).toBe(true);
    expect(seen.length).toBeLessThanOrEqual(5);
    expect(seen.at(-1)!.upstreamCostMicroCents).toBe(8 * RUNWAY_CREDIT_MICRO_CENTS);
    expect(fake.paidSubmissions() - paid).toBe(1);
  });

  it('sends every API request with the key and the X-Runway-Version the SDK pins', () => {
    const api = fake.requests.filter((r) => r.url.startsWith('/v1/'));
    expect(api.length).toBeGreaterThan(0);
    for (const request of api) {
      expect(request.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
      expect(request.headers['x-runway-version']).toBe(RUNWAY_VERSION);
    }
  });

  it('runs Gen-4 Turbo from our own first frame, sent inline, to an MP4', async () => {
    const input = await upstreamInput(GEN4_TURBO, { prompt: 'the waves roll in', image_url: OWN_SCENE, duration: '10', aspect_ratio: '21:9', seed: 42 });
    const first = await submit(GEN4_TURBO.route, input);
    expect(taskOf(first.id).body).toEqual({
      model: 'gen4_turbo',
      promptText: 'the waves roll in',
      promptImage: dataUri(png),
      duration: 10,
      ratio: '1584:672',
      seed: 42,
    });
    const seen = await expectFinishedWithOutputs(GEN4_TURBO.route, first, 'mp4');
    expect(seen.at(-1)!.upstreamCostMicroCents).toBe(50 * RUNWAY_CREDIT_MICRO_CENTS);
  });

  it('maps every duration and aspect ratio Gen-4 Turbo offers to values Runway takes', async () => {
    const schema = GEN4_TURBO.schema as { properties: Record<string, { enum: string[] }> };
    const input = (duration: string, aspect_ratio: string) => mapInput(GEN4_TURBO.route.input, { prompt: 'x', image_url: EXTERNAL, duration, aspect_ratio });
    expect(schema.properties.duration.enum.map((d) => input(d, '16:9').duration)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(new Set(schema.properties.aspect_ratio.enum.map((r) => input('5', r).ratio))).toEqual(
      new Set(['1280:720', '720:1280', '1104:832', '832:1104', '960:960', '1584:672']),
    );
  });

  it('runs Seedance 2.0 with the scene and every element image as reference images (no positions)', async () => {
    const input = await upstreamInput(SEEDANCE2, {
      prompt: 'a girl in a red coat carries a brass lamp through the market',
      image_url: EXTERNAL,
      elements: [
        { characterImages: [OWN_HERO, OWN_SCENE], type: 'character', name: 'Mara' },
        { characterImages: [EXTERNAL_LAMP], type: 'object', name: 'lamp' },
      ],
      duration: '10',
      aspect_ratio: '9:16',
    });
    const first = await submit(SEEDANCE2.route, input);
    expect(taskOf(first.id).body).toEqual({
      model: 'seedance2',
      promptText: 'a girl in a red coat carries a brass lamp through the market',
      promptImage: [{ uri: EXTERNAL }, { uri: dataUri(png) }, { uri: dataUri(png) }, { uri: EXTERNAL_LAMP }],
      duration: 10,
      ratio: '720:1280',
    });
    const seen = await expectFinishedWithOutputs(SEEDANCE2.route, first, 'mp4');
    expect(seen.at(-1)!.upstreamCostMicroCents).toBe(360 * RUNWAY_CREDIT_MICRO_CENTS);
  });

  it('keeps Seedance 2.0 within nine reference images: at most four elements of two images', () => {
    const element = (n: number) => ({ characterImages: Array.from({ length: n }, () => EXTERNAL), type: 'object', name: 'x' });
    const input = (elements: unknown[]) => ({ prompt: 'x', image_url: EXTERNAL, elements });
    expect(validateInput(SEEDANCE2.schema, input([element(2), element(2), element(2), element(2)])).ok).toBe(true);
    expect(validateInput(SEEDANCE2.schema, input([element(2), element(2), element(2), element(2), element(1)])).ok).toBe(false);
    expect(validateInput(SEEDANCE2.schema, input([element(3)])).ok).toBe(false);
  });

  it('reports a THROTTLED task as queued with its stage, then running, then succeeded', async () => {
    fake.slowMs = 1_400;
    const first = await submitPrompt('a slow harbour [upstream:slow]');
    await pause(400);
    expect(await adapter.status({ id: first.id, mapping: GEN4_IMAGE.route }, signal())).toMatchObject({ state: 'queued', stage: 'THROTTLED' });
    const seen = await untilFinished({ id: first.id, mapping: GEN4_IMAGE.route });
    expect(seen.some((s) => s.state === 'running')).toBe(true);
    expect(seen.at(-1)!.state).toBe('succeeded');
  });
});

describe('Runway adapter: documented errors', () => {
  it('maps a refused key (401) to PROVIDER_AUTH_FAILED, not retryable, without the key in the message', async () => {
    const wrong = createRunwayAdapter({ env: { ...fake.env, RUNWAYML_API_SECRET: 'key_not_the_right_one' } });
    const error = await failureOf(submitPrompt('a lighthouse', wrong));
    expect(error).toMatchObject({ code: 'PROVIDER_AUTH_FAILED', retryable: false });
    expect(error.message).not.toContain(fake.apiKey);
    expect(error.message).not.toContain('key_not_the_right_one');
  });

  it('maps 429 to PROVIDER_RATE_LIMITED without retrying the create; the next attempt is accepted', async () => {
    const paid = fake.paidSubmissions();
    const before = creates();
    const error = await failureOf(submitPrompt('a lighthouse [upstream:rate-limit]'));
    expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true });
    expect(error.retryAfterSeconds).toBeUndefined();
    expect(creates() - before).toBe(1);
    expect(fake.paidSubmissions()).toBe(paid);
    expect((await submitPrompt('a lighthouse [upstream:rate-limit]')).state).toBe('queued');
    expect(fake.paidSubmissions() - paid).toBe(1);
  });

  it('takes retryAfterSeconds from a Retry-After header on the 429 when there is one', async () => {
    fake.rateLimitRetryAfter = '7';
    const error = await failureOf(submitPrompt('a cliff [upstream:rate-limit]'));
    expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryable: true, retryAfterSeconds: 7 });
  });

  it('maps a 400 validation answer to PROVIDER_REJECTED_INPUT with Runway\'s reason, paying nothing', async () => {
    const paid = fake.paidSubmissions();
    expect(await failureOf(submitPrompt('a lighthouse [upstream:invalid]'))).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    const wrongRatio = { promptText: 'x', promptImage: EXTERNAL, ratio: '1920:1080' };
    const error = await failureOf(submit(GEN4_TURBO.route, wrongRatio));
    expect(error).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    expect(error.message).toMatch(/ratio must be one of/);
    expect(fake.paidSubmissions()).toBe(paid);
  });

  it('ends a task refused by content moderation (SAFETY.INPUT.TEXT) with CONTENT_POLICY_VIOLATION and no cost', async () => {
    const first = await submitPrompt('something forbidden [upstream:content-policy]');
    const last = (await untilFinished({ id: first.id, mapping: GEN4_IMAGE.route })).at(-1)!;
    expect(last).toMatchObject({ state: 'failed', stage: 'FAILED', upstreamCostMicroCents: 0 });
    expect(last.error).toMatchObject({ code: 'CONTENT_POLICY_VIOLATION', retryable: false });
    expect(last.error!.message).toContain('SAFETY.INPUT.TEXT');
  });

  it('maps each documented failure code of a failed task', async () => {
    const expected: Record<string, [string, boolean]> = {
      'SAFETY.OUTPUT.VIDEO': ['CONTENT_POLICY_VIOLATION', false],
      'INPUT_PREPROCESSING.SAFETY.TEXT': ['CONTENT_POLICY_VIOLATION', false],
      'ASSET.INVALID': ['PROVIDER_REJECTED_INPUT', false],
      'INTERNAL.BAD_OUTPUT.CODE01': ['PROVIDER_JOB_FAILED', false],
      INTERNAL: ['PROVIDER_UNAVAILABLE', true],
      'INPUT_PREPROCESSING.INTERNAL': ['PROVIDER_UNAVAILABLE', true],
      'THIRD_PARTY.UNAVAILABLE': ['PROVIDER_UNAVAILABLE', true],
    };
    const started: [string, GenerationSnapshot][] = [];
    for (const code of Object.keys(expected)) {
      fake.failureCode = code;
      started.push([code, await submitPrompt(`a lighthouse ${code} [upstream:fail]`)]);
    }
    await Promise.all(
      started.map(async ([code, first]) => {
        const last = (await untilFinished({ id: first.id, mapping: GEN4_IMAGE.route })).at(-1)!;
        expect(last.state).toBe('failed');
        expect([last.error!.code, last.error!.retryable], code).toEqual(expected[code]);
        expect(last.error!.message).toContain(code);
      }),
    );
    expect(taskFailure('t1', 'Something went wrong', undefined)).toMatchObject({ code: 'PROVIDER_JOB_FAILED', retryable: false });
    expect(taskFailure('t1', undefined, 'SOMETHING.NEW')).toMatchObject({ code: 'PROVIDER_JOB_FAILED', message: 'Runway task t1 failed (SOMETHING.NEW): no reason given' });
  });

  it('maps 502/503 on the create to PROVIDER_UNAVAILABLE without retrying it, and 504 to PROVIDER_TIMEOUT (it may have started)', async () => {
    const paid = fake.paidSubmissions();
    const before = creates();
    fake.failNext(503);
    expect(await failureOf(submitPrompt('a lighthouse'))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
    fake.failNext(504);
    expect(await failureOf(submitPrompt('a lighthouse'))).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
    expect(creates() - before).toBe(2);
    expect(fake.paidSubmissions()).toBe(paid);
  });

  it('lets the SDK retry a status read that met a 502, and maps one that keeps failing to PROVIDER_UNAVAILABLE', async () => {
    const first = await submitPrompt('a lighthouse');
    const reads = () => fake.requests.filter((r) => r.method === 'GET' && r.url === `/v1/tasks/${first.id}`).length;
    fake.failNext(502);
    const before = reads();
    expect((await adapter.status({ id: first.id, mapping: GEN4_IMAGE.route }, signal())).id).toBe(first.id);
    expect(reads() - before).toBe(2);
    fake.failNext(503, 3);
    expect(await failureOf(adapter.status({ id: first.id, mapping: GEN4_IMAGE.route }, signal()))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
  }, 20_000);

  it('maps a request that outlives requestTimeoutMs to PROVIDER_TIMEOUT', async () => {
    const impatient = createRunwayAdapter({ env: fake.env, requestTimeoutMs: 300 });
    fake.stallNext(1_500);
    // The late answer refuses the task, so nothing is paid behind the later tests' backs.
    expect(await failureOf(submitPrompt('a lighthouse [upstream:invalid]', impatient))).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
  });

  it('reports a request whose connection broke after it was sent as PROVIDER_TIMEOUT: a create may have started a task', async () => {
    const paid = fake.paidSubmissions();
    fake.dropNext();
    expect(await failureOf(submitPrompt('a lighthouse'))).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
    expect(fake.paidSubmissions() - paid).toBe(1);
    // A status read is retried (by the SDK, and by fetch on a reused connection); one that breaks every time is a timeout too.
    const first = await submitPrompt('a lighthouse');
    fake.dropNext(100);
    try {
      expect(await failureOf(adapter.status({ id: first.id, mapping: GEN4_IMAGE.route }, signal()))).toMatchObject({ code: 'PROVIDER_TIMEOUT', retryable: true });
    } finally {
      fake.dropNext(0);
    }
  }, 20_000);

  it('maps an origin that refuses connections to PROVIDER_UNAVAILABLE: nothing was sent', async () => {
    const unreachable = createRunwayAdapter({ env: { ...fake.env, RUNWAYML_BASE_URL: `http://127.0.0.1:${await closedPort()}` }, requestTimeoutMs: 2_000 });
    expect(await failureOf(submitPrompt('a lighthouse', unreachable))).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
  });

  it('gives up at once with the abort reason when the signal is aborted, sending nothing', async () => {
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    controller.abort(reason);
    const before = fake.requests.length;
    const input = await upstreamInput(GEN4_IMAGE, { prompt: 'a lighthouse' });
    await expect(submit(GEN4_IMAGE.route, input, adapter, controller.signal)).rejects.toBe(reason);
    await expect(adapter.status({ id: 'any', mapping: GEN4_IMAGE.route }, controller.signal)).rejects.toBe(reason);
    expect(fake.requests.length).toBe(before);
  });
});

describe('Runway adapter: cancel', () => {
  it('cancels a task still in progress with DELETE; the task then reads as cancelled, with no cost', async () => {
    fake.slowMs = 5_000;
    const first = await submitPrompt('a long harbour [upstream:slow]');
    const cancels = fake.cancellations();
    await adapter.cancel({ id: first.id, mapping: GEN4_IMAGE.route }, signal());
    expect(fake.cancellations() - cancels).toBe(1);
    expect(fake.requests.at(-1)).toMatchObject({ method: 'DELETE', url: `/v1/tasks/${first.id}` });
    expect(await adapter.status({ id: first.id, mapping: GEN4_IMAGE.route }, signal())).toMatchObject({
      state: 'cancelled',
      stage: 'CANCELLED',
      upstreamCostMicroCents: 0,
    });
  });

  it('treats cancelling an unknown task as done', async () => {
    await expect(adapter.cancel({ id: 'no-such-task', mapping: GEN4_IMAGE.route }, signal())).resolves.toBeUndefined();
  });

  it('treats cancelling a finished task as done (Runway deletes it); the task then reads as gone', async () => {
    const first = await submitPrompt('a lighthouse');
    await untilFinished({ id: first.id, mapping: GEN4_IMAGE.route });
    await expect(adapter.cancel({ id: first.id, mapping: GEN4_IMAGE.route }, signal())).resolves.toBeUndefined();
    await expect(adapter.cancel({ id: first.id, mapping: GEN4_IMAGE.route }, signal())).resolves.toBeUndefined();
    expect(await adapter.status({ id: first.id, mapping: GEN4_IMAGE.route }, signal())).toEqual({ id: first.id, state: 'cancelled', stage: 'DELETED' });
  });
});

describe('Runway adapter: files', () => {
  it('sends our own small file inline as a data: URI', async () => {
    expect(await adapter.prepareFile(inputFile(OWN_SCENE), signal())).toBe(dataUri(png));
  });

  it('uploads our own file through the SDK\'s ephemeral upload when its data: URI would reach 5 MB', async () => {
    expect(dataUri(big).length).toBeGreaterThanOrEqual(DATA_URI_MAX_CHARS);
    const uri = await adapter.prepareFile(inputFile(OWN_BIG), signal());
    expect(uri).toMatch(/^runway:\/\//);
    expect(fake.uploads().find((u) => u.uri === uri)).toMatchObject({ filename: 'big.png', size: big.length, contentType: 'image/png' });
    const first = await submit(GEN4_TURBO.route, await upstreamInput(GEN4_TURBO, { prompt: 'the waves roll in', image_url: OWN_BIG }));
    const sent = taskOf(first.id).body.promptImage;
    expect(sent).toMatch(/^runway:\/\//);
    expect(fake.uploads().find((u) => u.uri === sent)?.size).toBe(big.length);
  });

  it('passes an external https URL on for Runway to fetch, without reading it', async () => {
    expect(await adapter.prepareFile(inputFile(EXTERNAL), signal())).toBe(EXTERNAL);
  });
});
