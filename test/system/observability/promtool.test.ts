/**
 * Every scrape target passes `promtool check metrics` (Prometheus's own linter: names, types, suffixes, help): the
 * API's /metrics and a real worker process's metrics port, which also carries the Temporal SDK's exporter text. Both
 * are scraped after a job ran through them, so the job, HTTP and SDK families have samples.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { startTestApiWith, waitForFinal } from '../../support/api';
import { createTestAccount, testConfig, workerProcessEnv } from '../../support/stack';
import { imageJob, post } from '../../integration/jobs/helpers';
import { untilPolling } from '../../support/pollers';
import { providerTaskQueue } from '../../../src/shared/temporal';
import { builtArgs } from '../../support/build';

let api: RunningApi;
let worker: ChildProcess;
let workerMetricsUrl: string;

function promtoolCheckMetrics(exposition: string) {
  const binary = process.env.PROMTOOL_CLI;
  if (!binary) throw new Error('PROMTOOL_CLI is not set (run through npm test, whose bootstrap builds promtool)');
  return spawnSync(binary, ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
}

async function scrapeText(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return res.text();
}

/** Starts `src/workers/main.ts` with both kinds of worker in one process; resolves with its metrics URL. */
function startWorkerProcess(): Promise<string> {
  worker = spawn(process.execPath, builtArgs('src/workers/main.ts', ['--workflows', '--provider', 'pixelforge']), {
    env: { ...workerProcessEnv(api.deps.config), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the worker did not report its metrics URL within 90 s')), 90_000);
    let buffered = '';
    worker.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n').find((l) => l.includes('"metrics served"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line).metrics);
      }
    });
    worker.once('exit', (code) => reject(new Error(`the worker exited with ${code}`)));
  });
}

beforeAll(async () => {
  api = await startTestApiWith((url) => testConfig({ PUBLIC_BASE_URL: url }));
  workerMetricsUrl = await startWorkerProcess();
  const { config, temporal } = api.deps;
  await untilPolling(temporal.connection, config.temporal.namespace, worker, config.temporal.jobsTaskQueue, 'WORKFLOW');
  await untilPolling(temporal.connection, config.temporal.namespace, worker, providerTaskQueue('pixelforge', config.temporal.providerTaskQueuePrefix), 'ACTIVITY');
  const account = await createTestAccount(api.deps.prisma);
  const submitted = await post(`${api.url}/v1/jobs/submit`, account.apiKey, imageJob());
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  expect((await waitForFinal(api, account.apiKey, submitted.body.jobId, 60_000)).status).toBe('completed');
}, 150_000);

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
  }
  await api?.stop();
});

describe('promtool check metrics', () => {
  it("passes the API's /metrics", async () => {
    const text = await scrapeText(`${api.url}/metrics`);
    expect(text).toContain('genmedia_jobs_submitted_total{');
    const run = promtoolCheckMetrics(text);
    expect(run.stderr + run.stdout).toBe('');
    expect(run.status).toBe(0);
  });

  it("passes a worker's metrics port, the Temporal SDK's metrics included", async () => {
    const text = await scrapeText(workerMetricsUrl);
    expect(text).toContain('genmedia_jobs_completed_total{');
    expect(text).toContain('temporal_num_pollers');
    const run = promtoolCheckMetrics(text);
    expect(run.stderr + run.stdout).toBe('');
    expect(run.status).toBe(0);
  });
});
