/** The worker entrypoint as a process: provider listing, both queues in one process, graceful SIGTERM. */
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { jobWorkflowId } from '../../../src/contracts/workflows/job';
import { createTestAccount, eventually, startTestStack, workerProcessEnv, type TestStack } from '../../support/stack';
import { get, post } from './helpers';
import { builtArgs } from '../../support/build';

const MAIN = path.join('src', 'workers', 'main.ts');
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ workflowWorker: false, tuning: { providers: { timeScale: 0.1 } } });
});

afterAll(async () => {
  await stack?.stop();
});

describe('src/workers/main.ts', () => {
  it('--list-providers prints the catalog provider ids as a JSON array', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, builtArgs(MAIN, ['--list-providers']), {
      cwd: REPO_ROOT,
      env: workerProcessEnv(stack.config),
    });
    const ids = JSON.parse(stdout) as string[];
    expect(ids).toEqual(expect.arrayContaining(['pixelforge', 'motionworks']));
    expect([...ids].sort()).toEqual(ids);
  });

  it('runs --workflows and --provider together and drains a running job on SIGTERM', async () => {
    const child = spawn(process.execPath, builtArgs(MAIN, ['--workflows', '--provider', 'pixelforge']), {
      cwd: REPO_ROOT,
      env: workerProcessEnv(stack.config),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let next: ReturnType<typeof spawn> | undefined;
    try {
      const account = await createTestAccount(stack.prisma);
      // The worker process bundles its workflows as it starts; on a loaded machine the first submits may be answered
      // 503 (nothing charged) before it polls, and are retried as a client would.
      const submitted = await eventually(async () => {
        const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
          model: 'pixelforge/forge-lite/text-to-image',
          input: { prompt: 'drain me', size: 'landscape_16_9' },
        });
        return res.status === 503 ? undefined : res;
      }, 90_000, 1_000);
      expect(submitted.status).toBe(201);
      const jobId: string = submitted.body.jobId;
      await eventually(async () => {
        const job = await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
        return job.status === 'processing' ? true : undefined;
      }, 90_000, 50);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // The running provider attempt finished instead of being abandoned; the bookkeeping follows on the next workflow
      // worker of the same build, the one the job is pinned to (docs/workflow-versioning.md).
      next = spawn(process.execPath, builtArgs(MAIN, ['--workflows']), { cwd: REPO_ROOT, env: workerProcessEnv(stack.config), stdio: ['ignore', 'ignore', 'inherit'] });
      const job = await eventually(async () => {
        const res = await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey);
        return res.body.status === 'processing' ? undefined : res.body;
      }, 90_000, 200);
      expect(job.status).toBe('completed');
      const history = await stack.api.deps.temporal.workflow.getHandle(jobWorkflowId(jobId)).fetchHistory();
      const attempts = (history.events ?? []).map((e) => e.activityTaskStartedEventAttributes?.attempt).filter(Boolean);
      expect(Math.max(...(attempts as number[]))).toBe(1);
    } finally {
      child.kill('SIGKILL');
      next?.kill('SIGKILL');
    }
  }, 240_000);
});
