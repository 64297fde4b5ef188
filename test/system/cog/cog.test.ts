/**
 * Self-hosted models on the real Cog prediction server (cog 0.23.1 from PyPI, examples/cog): a job end to end, a
 * forged webhook, a provider worker SIGKILLed mid-prediction, a pool of two one-slot servers, a server killed
 * mid-prediction, and a model registered with `genmedia admin models import-cog`.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, request, waitForFinal } from '../../support/api';
import { runCli } from '../../support/cli';
import { REPO_ROOT } from '../../../src/config';
import { startCogServer, type CogServerProcess } from '../../support/cogServer';
import { eventually } from '../../support/eventually';
import { balanceOf, killWorkerProcess, ledgerOf, startE2eStack, type E2eStack } from '../../integration/e2e/e2eStack';
import { COG_TEST_TUNING, COG_TEST_SEGMENT, createCogTestAccount, importPainter, startCogProvidersWorkerProcess, startCogWorkerProcess, uniqueProvider } from './cogSupport';
import { createAdminKey } from '../../support/accounts';

let stack: E2eStack;
const servers: CogServerProcess[] = [];
const workerProcesses: ChildProcess[] = [];

async function server(options: { slots?: number; stepSeconds?: number } = {}): Promise<CogServerProcess> {
  const started = await startCogServer(options);
  servers.push(started);
  return started;
}

beforeAll(async () => {
  stack = await startE2eStack({ tuning: COG_TEST_TUNING });
}, 60_000);

afterAll(async () => {
  await Promise.all(workerProcesses.map(killWorkerProcess));
  await Promise.all(servers.map((s) => s.kill()));
  await stack?.stop();
});

async function submit(apiKey: string, model: string, input: Record<string, unknown>): Promise<string> {
  const submitted = await post(`${stack.url}/v1/jobs/submit`, apiKey, { model, input });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  return submitted.body.jobId as string;
}

async function predictionOf(jobId: string): Promise<string> {
  return eventually(async () => (await stack.prisma.job.findUnique({ where: { id: jobId } }))?.upstreamId ?? undefined, 30_000, 50, `job ${jobId} started on its server`);
}

describe('a job on a Cog server', () => {
  it('completes with its image in our storage, progress and stage from the logs, charged once', async () => {
    const cog = await server({ stepSeconds: 0.15 });
    const provider = uniqueProvider('cogjob');
    const model = await importPainter(stack, provider, [cog.url], 25_000);
    await stack.workers.startProviderWorker(provider);
    const account = await createCogTestAccount(stack);

    const jobId = await submit(account.apiKey, model, { prompt: 'a lighthouse at dusk', steps: 12, seed: 7 });
    const job = await waitForFinal(stack, account.apiKey, jobId, 60_000);

    expect(job).toMatchObject({ status: 'completed', progress: 100, costMicroCents: 25_000, refundedMicroCents: 0, error: null });
    expect(job.outputs).toHaveLength(1);
    expect(job.outputs[0]).toMatchObject({ contentType: 'image/png', width: 256, height: 256 });
    expect(await stack.storedOutputs(jobId)).toEqual([`${jobId}/output-1.png`]);
    const image = await fetch(job.outputs[0].url);
    expect(image.status).toBe(200);
    expect(Buffer.from(await image.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');

    const events = await stack.prisma.jobEvent.findMany({ where: { jobId }, orderBy: { sequence: 'asc' } });
    const stages = events.map((e) => e.stage).filter((s): s is string => !!s);
    expect(stages.some((s) => /^step \d+\/12$|\d+%\|/.test(s)), stages.join(' | ')).toBe(true);
    const midway = events.filter((e) => e.status === 'processing' && e.progress > 0 && e.progress < 100);
    expect(midway.length, events.map((e) => `${e.type}:${e.progress}`).join(' ')).toBeGreaterThan(0);

    expect(await ledgerOf(stack, jobId)).toEqual([['charge', -25_000n]]);
    expect(await balanceOf(stack, account.accountId)).toBe(1_000_000n - 25_000n);
    expect(cog.runs()).toHaveLength(1);
  }, 90_000);

  it('refuses a webhook with a wrong secret, and it changes nothing', async () => {
    const cog = await server({ stepSeconds: 0.1 });
    const provider = uniqueProvider('cogsecret');
    const model = await importPainter(stack, provider, [cog.url]);
    await stack.workers.startProviderWorker(provider);
    const account = await createCogTestAccount(stack);

    const jobId = await submit(account.apiKey, model, { prompt: 'a forged ending', steps: 30, seed: 1 });
    const predictionId = await predictionOf(jobId);
    const before = await stack.prisma.cogPrediction.findUniqueOrThrow({ where: { id: predictionId } });
    const forged = { id: predictionId, status: 'failed', error: 'forged', logs: 'step 30/30\n', metrics: {} };
    for (const query of [`?prediction=${predictionId}&secret=wrong`, `?prediction=${predictionId}`, '?secret=wrong', '']) {
      const answer = await request(`${stack.url}/v1/upstreams/cog/callback${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(forged),
      });
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('UNAUTHORIZED');
    }
    const after = await stack.prisma.cogPrediction.findUniqueOrThrow({ where: { id: predictionId } });
    expect(after.terminal).toBe(false);
    expect(after.snapshot === null || (after.snapshot as { status?: string }).status !== 'failed').toBe(true);
    expect(after.secretHash).toEqual(before.secretHash);

    const job = await waitForFinal(stack, account.apiKey, jobId, 60_000);
    expect(job).toMatchObject({ status: 'completed', error: null });
    expect(cog.runs()).toHaveLength(1);
  }, 90_000);
});

describe('a provider worker SIGKILLed mid-prediction', () => {
  it('is replaced by one that attaches to the same prediction: one run, one charge', async () => {
    const cog = await server({ stepSeconds: 0.1 });
    const provider = uniqueProvider('cogkill');
    const model = await importPainter(stack, provider, [cog.url], 30_000);
    const account = await createCogTestAccount(stack);
    const first = startCogWorkerProcess(stack, provider);
    let second: ReturnType<typeof startCogWorkerProcess> | undefined;
    try {
      const jobId = await submit(account.apiKey, model, { prompt: 'an interrupted painter', steps: 40, seed: 3 });
      const predictionId = await predictionOf(jobId);
      await eventually(async () => (cog.runs().length === 1 ? true : undefined), 20_000, 50, 'the prediction running');
      await killWorkerProcess(first);
      second = startCogWorkerProcess(stack, provider);

      const job = await waitForFinal(stack, account.apiKey, jobId, 60_000);
      expect(job).toMatchObject({ status: 'completed', costMicroCents: 30_000, refundedMicroCents: 0 });
      expect(job.upstream?.id).toBe(predictionId);
      expect(await stack.storedOutputs(jobId)).toEqual([`${jobId}/output-1.png`]);
      expect(cog.runs()).toHaveLength(1);
      expect(await ledgerOf(stack, jobId)).toEqual([['charge', -30_000n]]);
    } finally {
      await killWorkerProcess(first);
      if (second) await killWorkerProcess(second);
    }
  }, 120_000);
});

describe('a pool of Cog servers', () => {
  it('runs two jobs at once on two one-slot servers while a third waits for a slot', async () => {
    const a = await server({ stepSeconds: 0.1 });
    const b = await server({ stepSeconds: 0.1 });
    const provider = uniqueProvider('cogpool');
    const model = await importPainter(stack, provider, [a.url, b.url]);
    await stack.workers.startProviderWorker(provider, { maxConcurrentJobs: 10 });
    const account = await createCogTestAccount(stack);

    const jobIds = await Promise.all([1, 2, 3].map((n) => submit(account.apiKey, model, { prompt: `pool ${n}`, steps: 30, seed: n })));
    await eventually(async () => (a.runs().length === 1 && b.runs().length === 1 ? true : undefined), 30_000, 50, 'one run on each server');
    // A server logs its run before its answer reaches the worker, which then records the prediction on the job.
    const started = await eventually(
      async () => {
        const count = await stack.prisma.job.count({ where: { id: { in: jobIds }, upstreamId: { not: null } } });
        return count >= 2 ? count : undefined;
      },
      10_000,
      50,
      'two jobs with their prediction recorded',
    );
    // Both slots are taken: the third job has not reached any server.
    expect(started).toBe(2);
    const held = await stack.prisma.cogPrediction.count({ where: { providerId: provider, releasedAt: null } });
    expect(held).toBe(2);
    expect(a.runs().length + b.runs().length).toBe(2);

    const jobs = await Promise.all(jobIds.map((id) => waitForFinal(stack, account.apiKey, id, 90_000)));
    expect(jobs.map((j) => j.status)).toEqual(['completed', 'completed', 'completed']);
    expect(a.runs().length + b.runs().length).toBe(3);
    expect(a.runs().length).toBeGreaterThanOrEqual(1);
    expect(b.runs().length).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('fails a job whose server is killed mid-prediction, refunded in full, and sends the next job to a live server', async () => {
    const doomed = await server({ stepSeconds: 0.1 });
    const provider = uniqueProvider('cogdead');
    const model = await importPainter(stack, provider, [doomed.url], 40_000);
    await stack.workers.startProviderWorker(provider);
    const account = await createCogTestAccount(stack);

    const jobId = await submit(account.apiKey, model, { prompt: 'a short-lived server', steps: 50, seed: 9 });
    await predictionOf(jobId);
    await eventually(async () => (doomed.runs().length === 1 ? true : undefined), 20_000, 50, 'the prediction running');
    await doomed.kill();

    const job = await waitForFinal(stack, account.apiKey, jobId, 60_000);
    expect(job).toMatchObject({ status: 'failed', refundedMicroCents: 40_000 });
    expect(job.error.code).toBe('PROVIDER_UNAVAILABLE');
    expect(await ledgerOf(stack, jobId)).toEqual([
      ['charge', -40_000n],
      ['refund', 40_000n],
    ]);
    expect(await balanceOf(stack, account.accountId)).toBe(1_000_000n);
    expect(await stack.storedOutputs(jobId)).toEqual([]);

    // The dead server is skipped: a live one added to the pool takes the next job.
    const live = await server({ stepSeconds: 0.05 });
    await importPainter(stack, provider, [live.url], 40_000);
    const next = await submit(account.apiKey, model, { prompt: 'after the outage', steps: 4, seed: 2 });
    expect(await waitForFinal(stack, account.apiKey, next, 60_000)).toMatchObject({ status: 'completed' });
    expect(live.runs()).toHaveLength(1);
  }, 120_000);
});

describe('genmedia admin models import-cog', () => {
  let adminKey: string | undefined;
  async function genmediaKey(): Promise<string> {
    adminKey ??= await createAdminKey(stack.prisma);
    return adminKey;
  }

  /** The operator's CLI: over the operator API with an admin key. */
  async function genmedia(...args: string[]) {
    return runCli(args, { env: { ...process.env, GENMEDIA_BASE_URL: stack.url, GENMEDIA_ADMIN_KEY: await genmediaKey() }, cwd: REPO_ROOT });
  }

  it('registers the server\'s model: listed with its fields, valid input runs, invalid input refused at submit', async () => {
    const cog = await server({ stepSeconds: 0.05 });
    const provider = uniqueProvider('cogimport');
    const slug = `${provider}/painter/text-to-image`;
    // The stack already runs, with the worker that serves every cog provider (as npm run dev does): the import
    // needs nothing else for its jobs to run.
    const cogWorker = startCogProvidersWorkerProcess(stack);
    workerProcesses.push(cogWorker);
    const result = await genmedia('admin', 'models', 'import-cog', '--url', cog.url, '--slug', slug, '--price', '15000', '--visibility', 'segment', '--segments', COG_TEST_SEGMENT, '--json');
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ slug, providerId: provider, serverUrl: cog.url, slots: 1, fields: ['prompt', 'steps', 'width', 'height', 'seed'] });
    const account = await createCogTestAccount(stack);

    const listed = await request(`${stack.url}/v1/models/${encodeURIComponent(slug)}`, { headers: { 'x-api-key': account.apiKey } });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(JSON.stringify(listed.body)).toContain('Denoising steps');

    for (const input of [{ prompt: 'x', steps: 0 }, { prompt: 'x', steps: 'many' }, { steps: 3 }, { prompt: 'x', colour: 'red' }]) {
      const refused = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: slug, input });
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.error.code).toBe('INVALID_INPUT');
    }
    expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(0);
    expect(cog.runs()).toHaveLength(0);

    const jobId = await submit(account.apiKey, slug, { prompt: 'imported', steps: 3 });
    expect(await waitForFinal(stack, account.apiKey, jobId, 60_000)).toMatchObject({ status: 'completed', costMicroCents: 15_000 });

    const unreachable = await genmedia('admin', 'models', 'import-cog', '--url', 'http://127.0.0.1:9', '--slug', slug, '--price', '1', '--json');
    expect(unreachable.code).not.toBe(0);
    expect(unreachable.json.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('http://127.0.0.1:9') });
    const audit = await request(`${stack.url}/v1/admin/audit?targetId=${encodeURIComponent(slug)}`, { headers: { authorization: `Bearer ${(await genmediaKey())}` } });
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(['model.import-cog']);
  }, 120_000);
});
