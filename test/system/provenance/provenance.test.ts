/**
 * Content Credentials on real job outputs, read by an implementation of C2PA that is not the service's (c2pa-python
 * from PyPI): a built-in image and video, a Cog model's image, an upstream's image that carries its own manifest
 * (kept as an ingredient), and a WebM with its sidecar (checked as a pair by the verify endpoint and the CLI too). The
 * service's own endpoints report the same, a changed byte or another file's sidecar is invalid to both, the verify
 * endpoint tells our file from another account's, an unsigned one and another chain's, and refuses a malformed pair,
 * and an account with provenance switched off gets unmarked outputs while others do not.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAsset } from '../../../src/provenance/c2pa';
import { manifestDefinition } from '../../../src/provenance/manifest';
import { createFileSigner } from '../../../src/provenance/signer';
import { finishedAtOnce, type Generator } from '../../../src/providers/types';
import { bearer, get, post, request, waitForFinal } from '../../support/api';
import { runCli } from '../../support/cli';
import { createAdminKey, createTestAccount, type TestAccount } from '../../support/accounts';
import { startCogServer, type CogServerProcess } from '../../support/cogServer';
import { runPythonProgram } from '../../support/python';
import { samplePng } from '../../support/upstreams/media';
import { startOpenAIFake, type OpenAIFake } from '../../support/upstreams/openai';
import { startE2eStack, type E2eStack } from '../../integration/e2e/e2eStack';
import { COG_TEST_TUNING, createCogTestAccount, importPainter, uniqueProvider } from '../cog/cogSupport';
import { createChain, provenanceEnv, type ChainFiles } from '../../support/provenanceChain';


interface PythonRead {
  path: string;
  state?: 'Invalid' | 'Valid' | 'Trusted';
  failures?: string[];
  error?: string;
  claimGenerator?: string[];
  assertions?: Record<string, any>;
  ingredients?: { relationship: string; manifest: string | null }[];
  manifests?: number;
}

const TRAINED = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';

let stack: E2eStack;
let workDir: string;
let ours: ChainFiles;
let upstreamChain: ChainFiles;
let openai: OpenAIFake;
let cog: CogServerProcess | undefined;
let account: TestAccount;
let otherAccount: TestAccount;
let upstreamPng: Buffer;
const savedEnv: Record<string, string | undefined> = {};

/** A one-second WebM (VP9), which C2PA cannot embed into: the service stores a sidecar beside it. */
const webmGenerator: Generator = {
  async generate(_req, ctx) {
    const file = path.join(ctx.workDir, 'clip.webm');
    await promisify(execFile)('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=64x48:rate=10', '-t', '1', '-c:v', 'libvpx-vp9', file]);
    return [{ path: file, contentType: 'video/webm', sizeBytes: (await stat(file)).size, width: 64, height: 48, durationSeconds: 1 }];
  },
  async cancel() {},
};

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'genmedia-provenance-'));
  ours = createChain(path.join(workDir, 'ours'), { name: 'genmedia provenance test' });
  upstreamChain = createChain(path.join(workDir, 'upstream'), { name: 'upstream fake' });

  // The upstream's own Content Credentials, made with the same library, under a chain of its own.
  const upstreamSigner = createFileSigner({
    certificateChainPem: await readFile(upstreamChain.chainFile, 'utf8'),
    privateKeyPem: await readFile(upstreamChain.keyFile, 'utf8'),
  });
  const plain = path.join(workDir, 'upstream-plain.png');
  await writeFile(plain, await samplePng());
  const upstreamFacts = { jobId: 'upstream-generation', output: 1, modelSlug: 'gpt-image-2', version: '2', route: { provider: 'openai' }, signedAt: new Date() };
  const signedUpstream = path.join(workDir, 'upstream-signed.png');
  await signAsset({
    signer: upstreamSigner,
    definition: manifestDefinition(upstreamFacts, { name: 'upstream fake', version: '1' }, 'image/png'),
    inputPath: plain,
    contentType: 'image/png',
    outputPath: signedUpstream,
  });
  upstreamPng = await readFile(signedUpstream);

  openai = await startOpenAIFake();
  openai.outputPng = upstreamPng;
  for (const [name, value] of Object.entries(openai.env)) {
    savedEnv[name] = process.env[name];
    process.env[name] = value;
  }
  stack = await startE2eStack({ providers: ['pixelforge', 'motionworks', 'openai'], env: provenanceEnv(ours), tuning: { ...COG_TEST_TUNING, upstreams: { ...COG_TEST_TUNING.upstreams, pollIntervalMs: 200 } } });
  await stack.workers.startProviderWorker('lumina', { adapter: finishedAtOnce('lumina', webmGenerator) });
  account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n });
  otherAccount = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n });
}, 120_000);

afterAll(async () => {
  await cog?.kill();
  await stack?.stop();
  await openai?.close();
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

async function runJob(apiKey: string, model: string, input: Record<string, unknown>): Promise<any> {
  const submitted = await post(`${stack.url}/v1/jobs/submit`, apiKey, { model, input });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  const job = await waitForFinal(stack, apiKey, submitted.body.jobId, 90_000);
  expect(job.status, JSON.stringify(job.error)).toBe('completed');
  return job;
}

/** Downloads an output into the work directory; returns the file's path. */
async function saveOutput(url: string, name: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const file = path.join(workDir, name);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

async function readWithPython(files: { path: string; mimeType: string; sidecar?: string }[]): Promise<PythonRead[]> {
  return runPythonProgram('read_c2pa.py', [], { trustAnchors: await readFile(ours.rootFile, 'utf8'), files });
}

async function verify(apiKey: string, bytes: Buffer): Promise<any> {
  const res = await request(`${stack.url}/v1/provenance/verify`, { method: 'POST', headers: bearer(apiKey, { 'content-type': 'application/octet-stream' }), body: bytes });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Checks a file with its sidecar manifest, as a multipart body. */
async function verifyPair(apiKey: string, file: Buffer, manifest: Buffer): Promise<any> {
  const form = new FormData();
  form.append('file', new Blob([file], { type: 'video/webm' }), 'clip.webm');
  form.append('manifest', new Blob([manifest], { type: 'application/c2pa' }), 'clip.webm.c2pa');
  const res = await request(`${stack.url}/v1/provenance/verify`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

function expectOurManifest(read: PythonRead, job: any, output: number) {
  expect(read.error).toBeUndefined();
  expect(read.state, JSON.stringify(read.failures)).toBe('Trusted');
  expect(read.claimGenerator).toEqual(['genmedia']);
  const actions = Object.entries(read.assertions!).find(([label]) => label.startsWith('c2pa.actions'))![1];
  expect(actions.actions[0]).toMatchObject({ action: 'c2pa.created', digitalSourceType: TRAINED, softwareAgent: { name: job.model, version: job.version } });
  expect(read.assertions!['io.genmedia.output']).toMatchObject({ jobId: job.jobId, output, model: job.model, version: job.version });
  // No prompt, no account: the account did not opt in.
  expect(JSON.stringify(read.assertions)).not.toContain(job.input.prompt);
  expect(JSON.stringify(read.assertions)).not.toContain(account.accountId);
}

describe('outputs read by c2pa-python', () => {
  let imageJob: any;
  let imageFile: string;
  let webmJob: any;
  let webmFile: string;
  let webmSidecar: string;

  it('a built-in image carries our manifest, and its size in the job record is the signed file\'s', async () => {
    imageJob = await runJob(account.apiKey, 'pixelforge/forge-pro/text-to-image', { prompt: 'a signed lighthouse', num_images: '1' });
    imageFile = await saveOutput(imageJob.outputs[0].url, 'image.png');
    expect((await stat(imageFile)).size).toBe(imageJob.outputs[0].sizeBytes);
    expect(await sharp(imageFile).metadata()).toMatchObject({ format: 'png', width: imageJob.outputs[0].width, height: imageJob.outputs[0].height });

    const [read] = await readWithPython([{ path: imageFile, mimeType: 'image/png' }]);
    expectOurManifest(read, imageJob, 1);
    expect(read.assertions!['io.genmedia.output'].route).toEqual({ provider: 'pixelforge' });

    const report = await get(`${stack.url}/v1/jobs/${imageJob.jobId}/outputs/1/provenance`, account.apiKey);
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ hasManifest: true, manifestLocation: 'embedded', validationState: 'Trusted', valid: true, signedByThisService: true, manifestUrl: null });
    expect(report.body.activeManifest.signer.commonName).toBe('genmedia provenance test signer');
    expect(report.body.activeManifest.assertions.map((a: { label: string }) => a.label)).toEqual(expect.arrayContaining(['io.genmedia.output']));
  }, 120_000);

  it('a built-in video (MP4) carries our manifest', async () => {
    const job = await runJob(account.apiKey, 'motionworks/reel-2/text-to-video', { prompt: 'a signed sunrise', duration: '5' });
    expect(job.outputs[0].contentType).toBe('video/mp4');
    const file = await saveOutput(job.outputs[0].url, 'video.mp4');
    expect((await stat(file)).size).toBe(job.outputs[0].sizeBytes);

    const [read] = await readWithPython([{ path: file, mimeType: 'video/mp4' }]);
    expectOurManifest(read, job, 1);
  }, 180_000);

  it('a Cog model\'s image carries our manifest, naming the Cog provider as the route', async () => {
    cog = await startCogServer({ stepSeconds: 0.05 });
    const provider = uniqueProvider('cogsigned');
    const model = await importPainter(stack, provider, [cog.url]);
    await stack.workers.startProviderWorker(provider);
    const cogAccount = await createCogTestAccount(stack);

    const job = await runJob(cogAccount.apiKey, model, { prompt: 'a signed painting', steps: 4, seed: 1 });
    const file = await saveOutput(job.outputs[0].url, 'cog.png');

    const [read] = await readWithPython([{ path: file, mimeType: 'image/png' }]);
    expect(read.state, JSON.stringify(read)).toBe('Trusted');
    expect(read.assertions!['io.genmedia.output']).toMatchObject({ jobId: job.jobId, model, route: { provider } });
  }, 120_000);

  it("an upstream's image keeps the upstream's own manifest as a parentOf ingredient of ours", async () => {
    const job = await runJob(account.apiKey, 'openai/gpt-image-2/text-to-image', { prompt: 'a signed upstream picture' });
    const file = await saveOutput(job.outputs[0].url, 'upstream.png');

    const [read] = await readWithPython([{ path: file, mimeType: 'image/png' }]);
    expectOurManifest(read, job, 1);
    expect(read.manifests).toBe(2);
    expect(read.ingredients).toEqual([{ relationship: 'parentOf', manifest: expect.any(String) }]);
    expect(read.assertions!['io.genmedia.output'].route).toMatchObject({ provider: 'openai', upstreamModel: expect.any(String) });

    const report = await get(`${stack.url}/v1/jobs/${job.jobId}/outputs/1/provenance`, account.apiKey);
    expect(report.body.activeManifest.ingredients).toEqual([
      expect.objectContaining({ relationship: 'parentOf', claimGenerator: 'upstream fake/1', signer: expect.objectContaining({ commonName: 'upstream fake signer' }) }),
    ]);
  }, 120_000);

  it('a WebM gets a sidecar .c2pa beside it, linked from the output and read with it', async () => {
    const job = await runJob(account.apiKey, 'lumina/lumi-xl/text-to-image', { prompt: 'a signed clip' });
    const [output] = job.outputs;
    expect(output.contentType).toBe('video/webm');
    expect(output.manifestUrl).toMatch(/output-1\.webm\.c2pa\?/);
    const file = await saveOutput(output.url, 'clip.webm');
    const sidecar = await saveOutput(output.manifestUrl, 'clip.webm.c2pa');
    [webmJob, webmFile, webmSidecar] = [job, file, sidecar];

    const download = await fetch(`${stack.url}/v1/jobs/${job.jobId}/outputs/1`, { headers: bearer(account.apiKey), redirect: 'manual' });
    expect(download.status).toBe(302);
    expect(download.headers.get('link')).toMatch(/^<http[^>]+output-1\.webm\.c2pa\?[^>]+>; rel="c2pa-manifest"$/);
    expect(download.headers.get('location')).toMatch(/output-1\.webm\?/);

    const [read] = await readWithPython([{ path: file, mimeType: 'video/webm', sidecar }]);
    expectOurManifest(read, job, 1);
    const report = await get(`${stack.url}/v1/jobs/${job.jobId}/outputs/1/provenance`, account.apiKey);
    expect(report.body).toMatchObject({ hasManifest: true, manifestLocation: 'sidecar', validationState: 'Trusted', manifestUrl: expect.stringMatching(/\.c2pa\?/) });
  }, 120_000);

  it('a WebM checked with its sidecar by the verify endpoint names its job; one changed byte or another file is invalid, to c2pa-python too', async () => {
    const bytes = await readFile(webmFile);
    const sidecar = await readFile(webmSidecar);
    expect(await verifyPair(account.apiKey, bytes, sidecar)).toMatchObject({
      hasManifest: true,
      valid: true,
      signedByThisService: true,
      job: { jobId: webmJob.jobId, output: 1 },
      report: { manifestLocation: 'sidecar', validationState: 'Trusted' },
    });
    // Without its sidecar a WebM carries nothing; another account learns only that this service issued it.
    expect(await verify(account.apiKey, bytes)).toMatchObject({ hasManifest: false, valid: false, job: null });
    expect(await verifyPair(otherAccount.apiKey, bytes, sidecar)).toMatchObject({ hasManifest: true, valid: true, signedByThisService: true, job: null });

    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 20] ^= 0x01;
    const flippedFile = path.join(workDir, 'flipped.webm');
    await writeFile(flippedFile, flipped);
    const changed = await verifyPair(account.apiKey, flipped, sidecar);
    expect(changed).toMatchObject({ hasManifest: true, valid: false, signedByThisService: false, job: null, report: { validationState: 'Invalid' } });
    expect(changed.report.failures.map((f: { code: string }) => f.code)).toContain('assertion.dataHash.mismatch');

    const otherFile = path.join(workDir, 'other.webm');
    await promisify(execFile)('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=48x32:rate=10', '-t', '1', '-c:v', 'libvpx-vp9', otherFile]);
    expect(await verifyPair(account.apiKey, await readFile(otherFile), sidecar)).toMatchObject({ hasManifest: true, valid: false, signedByThisService: false, job: null });

    const [intactRead, flippedRead, otherRead] = await readWithPython([
      { path: webmFile, mimeType: 'video/webm', sidecar: webmSidecar },
      { path: flippedFile, mimeType: 'video/webm', sidecar: webmSidecar },
      { path: otherFile, mimeType: 'video/webm', sidecar: webmSidecar },
    ]);
    expectOurManifest(intactRead, webmJob, 1);
    for (const read of [flippedRead, otherRead]) {
      expect(read.state === 'Invalid' || read.error !== undefined, JSON.stringify(read)).toBe(true);
      expect(read.state).not.toBe('Trusted');
    }
  }, 60_000);

  it('refuses a multipart check without its file, with a part twice, an unknown part, a sidecar that is no manifest or one too large', async () => {
    const bytes = await readFile(webmFile);
    const sidecar = await readFile(webmSidecar);
    const refusal = async (form: FormData) => {
      const res = await request(`${stack.url}/v1/provenance/verify`, { method: 'POST', headers: { authorization: `Bearer ${account.apiKey}` }, body: form });
      return { status: res.status, code: res.body?.error?.code, message: res.body?.error?.message as string };
    };
    const form = (parts: [string, Buffer | string, string?][]) => {
      const made = new FormData();
      for (const [name, value, filename] of parts) made.append(name, typeof value === 'string' ? value : new Blob([value]), ...(filename ? [filename] : []));
      return made;
    };

    expect(await refusal(form([['manifest', sidecar, 'clip.webm.c2pa']]))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', message: expect.stringContaining('file') });
    expect(await refusal(form([['file', bytes, 'a.webm'], ['file', bytes, 'b.webm']]))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', message: expect.stringContaining('more than once') });
    expect(await refusal(form([['file', bytes, 'a.webm'], ['thumbnail', bytes, 'a.png']]))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', message: expect.stringContaining('thumbnail') });
    expect(await refusal(form([['file', bytes, 'a.webm'], ['note', 'hello']]))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', message: expect.stringContaining('note') });
    expect(await refusal(form([['file', 'not a file']]))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', message: expect.stringContaining('must be a file') });
    expect(await refusal(form([['file', bytes, 'a.webm'], ['manifest', await samplePng(), 'a.c2pa']]))).toMatchObject({ status: 400, code: 'INVALID_MANIFEST' });
    expect(await refusal(form([['file', bytes, 'a.webm'], ['manifest', Buffer.alloc(1024 * 1024 + 1, 1), 'big.c2pa']]))).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(await refusal(form([['file', Buffer.from('not a picture'), 'a.txt'], ['manifest', sidecar, 'a.c2pa']]))).toMatchObject({ status: 400, code: 'INVALID_CONTENT_TYPE' });
    const broken = await request(`${stack.url}/v1/provenance/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.webm"\r\n\r\nunfinished',
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('`genmedia verify --manifest` checks a WebM with its sidecar', async () => {
    const env = { ...process.env, GENMEDIA_BASE_URL: stack.url, GENMEDIA_API_KEY: account.apiKey, GENMEDIA_CONFIG_DIR: path.join(workDir, 'cli') };
    const checked = await runCli(['verify', webmFile, '--manifest', webmSidecar], { env, cwd: workDir });
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toContain('Content Credentials valid');
    expect(checked.stdout).toContain(`job ${webmJob.jobId}, output 1`);

    const flipped = Buffer.from(await readFile(webmFile));
    flipped[flipped.length - 20] ^= 0x01;
    const flippedFile = path.join(workDir, 'flipped-for-cli.webm');
    await writeFile(flippedFile, flipped);
    const changed = await runCli(['verify', flippedFile, '--manifest', webmSidecar, '--json'], { env, cwd: workDir });
    expect(changed.code).toBe(1);
    expect(changed.json).toMatchObject({ hasManifest: true, valid: false, job: null });
  });

  it('a byte changed in a signed output is invalid to c2pa-python and to the verify endpoint', async () => {
    const bytes = await readFile(imageFile);
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 40] ^= 0x01;
    const flippedFile = path.join(workDir, 'flipped.png');
    await writeFile(flippedFile, flipped);

    const [read] = await readWithPython([{ path: flippedFile, mimeType: 'image/png' }]);
    expect(read.state === 'Invalid' || read.error !== undefined, JSON.stringify(read)).toBe(true);
    expect(read.state).not.toBe('Trusted');
    const checked = await verify(account.apiKey, flipped);
    expect(checked).toMatchObject({ hasManifest: true, valid: false, signedByThisService: false, job: null });

    const intact = await verify(account.apiKey, bytes);
    expect(intact).toMatchObject({ hasManifest: true, valid: true, signedByThisService: true, job: { jobId: imageJob.jobId, output: 1 } });
  });

  it("tells another account's file (issued by this service, no job), an unsigned file and another chain's file apart", async () => {
    const bytes = await readFile(imageFile);
    expect(await verify(otherAccount.apiKey, bytes)).toMatchObject({ hasManifest: true, valid: true, signedByThisService: true, job: null });
    expect(await verify(account.apiKey, await samplePng())).toMatchObject({ hasManifest: false, valid: false, signedByThisService: false, job: null });
    expect(await verify(account.apiKey, upstreamPng)).toMatchObject({ hasManifest: true, valid: true, signedByThisService: false, job: null });

    const text = await request(`${stack.url}/v1/provenance/verify`, { method: 'POST', headers: bearer(account.apiKey, { 'content-type': 'text/plain' }), body: 'not a picture' });
    expect(text.status).toBe(400);
    expect(text.body.error.code).toBe('INVALID_CONTENT_TYPE');
    const empty = await request(`${stack.url}/v1/provenance/verify`, { method: 'POST', headers: bearer(account.apiKey), body: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('`genmedia verify` names the job of a file of ours and fails on a changed one', async () => {
    const env = { ...process.env, GENMEDIA_BASE_URL: stack.url, GENMEDIA_API_KEY: account.apiKey, GENMEDIA_CONFIG_DIR: path.join(workDir, 'cli') };
    const ours = await runCli(['verify', imageFile], { env, cwd: workDir });
    expect(ours.code, ours.stderr).toBe(0);
    expect(ours.stdout).toContain('Content Credentials valid');
    expect(ours.stdout).toContain('signed by this service (genmedia provenance test signer)');
    expect(ours.stdout).toContain(`job ${imageJob.jobId}, output 1`);

    const flipped = Buffer.from(await readFile(imageFile));
    flipped[flipped.length - 40] ^= 0x01;
    const flippedFile = path.join(workDir, 'flipped-for-cli.png');
    await writeFile(flippedFile, flipped);
    const changed = await runCli(['verify', flippedFile, '--json'], { env, cwd: workDir });
    expect(changed.code).toBe(1);
    expect(changed.json).toMatchObject({ hasManifest: true, valid: false, signedByThisService: false, job: null });
  });

  it('answers OUTPUT_NOT_FOUND for an output the job does not have and JOB_NOT_FOUND for another account\'s job', async () => {
    const missing = await get(`${stack.url}/v1/jobs/${imageJob.jobId}/outputs/2/provenance`, account.apiKey);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('OUTPUT_NOT_FOUND');
    const foreign = await get(`${stack.url}/v1/jobs/${imageJob.jobId}/outputs/1/provenance`, otherAccount.apiKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('JOB_NOT_FOUND');
    const zero = await get(`${stack.url}/v1/jobs/${imageJob.jobId}/outputs/0/provenance`, account.apiKey);
    expect(zero.status).toBe(400);
    expect(zero.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('provenance switched off for one account', () => {
  it('leaves that account\'s outputs unmarked, and only that account\'s; the switch is audited', async () => {
    const unmarked = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n });
    const adminKey = await createAdminKey(stack.prisma);
    const patched = await request(`${stack.url}/v1/admin/accounts/${unmarked.accountId}`, {
      method: 'PATCH',
      headers: bearer(adminKey),
      body: JSON.stringify({ provenance: { enabled: false } }),
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.provenance).toEqual({ enabled: false, includePrompt: false });
    const audit = await stack.prisma.auditEntry.findFirstOrThrow({ where: { targetId: unmarked.accountId, action: 'account.update' }, orderBy: { id: 'desc' } });
    expect(audit.before).toMatchObject({ provenance: { enabled: true } });
    expect(audit.after).toMatchObject({ provenance: { enabled: false } });

    const [plainJob, signedJob] = await Promise.all([
      runJob(unmarked.apiKey, 'pixelforge/forge-pro/text-to-image', { prompt: 'an unmarked lighthouse', num_images: '1' }),
      runJob(account.apiKey, 'pixelforge/forge-pro/text-to-image', { prompt: 'a marked lighthouse', num_images: '1' }),
    ]);
    const plainFile = await saveOutput(plainJob.outputs[0].url, 'unmarked.png');
    const signedFile = await saveOutput(signedJob.outputs[0].url, 'marked.png');

    const [plainRead, signedRead] = await readWithPython([
      { path: plainFile, mimeType: 'image/png' },
      { path: signedFile, mimeType: 'image/png' },
    ]);
    expect(plainRead.error).toMatch(/ManifestNotFound/);
    expect(signedRead.state).toBe('Trusted');
    const report = await get(`${stack.url}/v1/jobs/${plainJob.jobId}/outputs/1/provenance`, unmarked.apiKey);
    expect(report.body).toMatchObject({ hasManifest: false, signedByThisService: false, activeManifest: null });
  }, 120_000);

  it('puts the prompt into the manifest only for an account the operator opted in', async () => {
    const opted = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n });
    const adminKey = await createAdminKey(stack.prisma);
    const patched = await request(`${stack.url}/v1/admin/accounts/${opted.accountId}`, {
      method: 'PATCH',
      headers: bearer(adminKey),
      body: JSON.stringify({ provenance: { includePrompt: true } }),
    });
    expect(patched.body.provenance).toEqual({ enabled: true, includePrompt: true });

    const job = await runJob(opted.apiKey, 'pixelforge/forge-pro/text-to-image', { prompt: 'a prompt the customer shares', num_images: '1' });
    const [read] = await readWithPython([{ path: await saveOutput(job.outputs[0].url, 'prompted.png'), mimeType: 'image/png' }]);
    expect(read.assertions!['io.genmedia.output'].prompt).toBe('a prompt the customer shares');
  }, 120_000);
});
