/**
 * The production build as production runs it: `npm run build` (redone only when dist/ is missing or older than the
 * sources), then the built API, workflow worker and provider worker started with plain `node` against the test
 * stack, on task queues of their own. A job goes through them; then a workflow worker with tracing on, which takes
 * the prebuilt bundle carrying the tracing interceptors, runs a second one. Jobs are submitted once the workflow
 * worker polls, so a slow start on a loaded machine never meets the admission deadline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import { freeLoopbackPort } from '../../../src/lib/freePort';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { post, waitForFinal } from '../../support/api';
import { eventually } from '../../support/eventually';
import { untilPolling, type TaskQueueKind } from '../../support/pollers';

const { ensureBuilt, BUNDLE } = require('../../../scripts/lib/build') as {
  ensureBuilt: () => Promise<boolean>;
  BUNDLE: string;
};
const { WORKFLOW_WORKER_NODE_OPTIONS } = require('../../../scripts/lib/app') as { WORKFLOW_WORKER_NODE_OPTIONS: string[] };

const MODEL = 'pixelforge/forge-pro/text-to-image';

interface BuiltProcess {
  child: ChildProcess;
  output: () => string;
}

const started: BuiltProcess[] = [];
/** The processes' own task queues and worker deployment, `built-<id>-jobs`, `built-<id>-provider.<providerId>`. */
const prefix = `built-${randomUUID()}-`;
let prisma: PrismaClient;
let connection: Connection;
let account: TestAccount;
let api: { url: string };

/** `node [nodeOptions] dist/<file>` with the test stack's environment: no tsx, no loader, as the Dockerfile runs it. */
function startBuilt(file: string, args: string[], env: NodeJS.ProcessEnv = {}, nodeOptions: string[] = []): BuiltProcess {
  const child = spawn(process.execPath, [...nodeOptions, path.join('dist', file), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, TEMPORAL_TASK_QUEUE_PREFIX: prefix, METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const run = { child, output: () => text };
  started.push(run);
  return run;
}

async function stop({ child }: BuiltProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Until `run` polls `taskQueue`: a submit before that would wait on a loaded machine. */
function untilBuiltPolls(run: BuiltProcess, taskQueue: string, kind: TaskQueueKind): Promise<void> {
  return untilPolling(connection, process.env.TEMPORAL_NAMESPACE ?? 'default', run.child, taskQueue, kind, run.output);
}

/** With the V8 options docker-compose.yml gives it, so the Node in use is known to accept them. */
function startWorkflowWorker(env: NodeJS.ProcessEnv = {}): Promise<BuiltProcess> {
  const run = startBuilt(path.join('src', 'workers', 'main.js'), ['--workflows'], env, WORKFLOW_WORKER_NODE_OPTIONS);
  return untilBuiltPolls(run, `${prefix}jobs`, 'WORKFLOW').then(() => run);
}

async function runJob(prompt: string) {
  const submitted = await post(`${api.url}/v1/jobs/submit`, account.apiKey, { model: MODEL, input: { prompt } });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  return waitForFinal(api, account.apiKey, submitted.body.jobId, 60_000);
}

beforeAll(async () => {
  await ensureBuilt();
  prisma = createPrisma(process.env.DATABASE_URL!);
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  account = await createTestAccount(prisma);
  const port = await freeLoopbackPort();
  api = { url: `http://127.0.0.1:${port}` };
  const apiProcess = startBuilt(path.join('src', 'api', 'server.js'), [], { PORT: String(port), API_HOST: '127.0.0.1', PUBLIC_BASE_URL: api.url });
  await eventually(async () => {
    if (apiProcess.child.exitCode !== null) throw new Error(`the built API exited with ${apiProcess.child.exitCode}:\n${apiProcess.output()}`);
    // No workflow worker runs yet (each test starts its own): every other dependency answers.
    const readiness = await fetch(`${api.url}/readyz`).then((r) => r.json() as Promise<{ unavailable?: string[] }>, () => undefined);
    return readiness?.unavailable?.join() === 'workers' || undefined;
  }, 60_000, 200);
  const provider = startBuilt(path.join('src', 'workers', 'main.js'), ['--provider', 'pixelforge']);
  await untilBuiltPolls(provider, `${prefix}provider.pixelforge`, 'ACTIVITY');
}, 600_000);

afterAll(async () => {
  for (const run of started) await stop(run);
  await connection?.close();
  await prisma?.$disconnect();
});

describe('npm run build', () => {
  it('compiles every process to dist/ with one workflow bundle, tracing interceptors included', () => {
    for (const file of ['src/api/server.js', 'src/workers/main.js', 'src/db/seed.js', 'workflows/index.js', 'activities/index.js']) {
      expect(fs.existsSync(path.join(REPO_ROOT, 'dist', file)), file).toBe(true);
    }
    const bundle = fs.readFileSync(BUNDLE, 'utf8');
    expect(bundle).toContain('jobWorkflow');
    expect(bundle).toContain('OpenTelemetryInboundInterceptor');
    expect(fs.existsSync(path.join(REPO_ROOT, 'dist', 'workflow-bundle-tracing.js'))).toBe(false);
    // The SDK, imported as @genmedia/client, resolves to its own built package, not to its TypeScript sources.
    expect(require.resolve('@genmedia/client', { paths: [path.join(REPO_ROOT, 'dist', 'src')] })).toBe(
      path.join(REPO_ROOT, 'clients', 'typescript', 'dist', 'index.js'),
    );
  });

  it('runs a job through the built API and workers started with plain node', async () => {
    const workflows = await startWorkflowWorker();
    try {
      const job = await runJob('a lighthouse from the build');
      expect(job.status, `${JSON.stringify(job.error)}\n${workflows.output()}`).toBe('completed');
      expect(job.outputs).toHaveLength(1);
      expect((await fetch(job.outputs[0].url)).status).toBe(200);
    } finally {
      await stop(workflows);
    }
    expect(workflows.child.exitCode, workflows.output()).toBe(0);
  }, 240_000);

  it('runs the same bundle with tracing on: workflow spans leave the built worker', async () => {
    const workflows = await startWorkflowWorker({ OTEL_TRACES_EXPORTER: 'console' });
    try {
      const job = await runJob('a traced lighthouse from the build');
      expect(job.status, `${JSON.stringify(job.error)}\n${workflows.output()}`).toBe('completed');
      await eventually(async () => (/name: 'RunWorkflow:jobWorkflow'/.test(workflows.output()) ? true : undefined), 30_000, 200, 'a workflow span');
    } finally {
      await stop(workflows);
    }
  }, 240_000);
});
