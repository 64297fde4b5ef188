/**
 * The workflow worker process restarted as a developer or an operator does it, against real Temporal: tracing on,
 * off and on again, then another branch's build, then the first branch again. Tracing is not a build of its own (its
 * interceptors are in every bundle), so the first three starts are one build; the branch that ran before takes current
 * back from the build whose worker stopped, and says so. /readyz is 503 while no worker of the current build polls,
 * and every start ends with a completed job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, request, waitForFinal } from '../../support/api';
import { sigkill, sigterm, spawnLoggingWorkflowWorker, type LoggingProcess } from '../../support/processes';
import { createTestAccount, eventually, startTestStack, type TestAccount, type TestStack } from '../../support/stack';

let stack: TestStack;
let account: TestAccount;
const running: LoggingProcess[] = [];

beforeAll(async () => {
  stack = await startTestStack({ workflowWorker: false, providers: ['pixelforge'] });
  account = await createTestAccount(stack.prisma);
}, 120_000);

afterAll(async () => {
  for (const worker of running) await sigkill(worker.child);
  await stack?.stop();
});

interface VersionLine {
  buildId: string;
  outcome: string;
  previousBuildId?: string;
  msg: string;
}

/** The worker's `worker deployment version` lines: its claim at start, then any its watch made. */
function versionLines(worker: LoggingProcess): VersionLine[] {
  return worker
    .output()
    .split('\n')
    .filter((l) => l.includes('"msg":"worker deployment version'))
    .map((l) => JSON.parse(l) as VersionLine);
}

async function readiness(): Promise<{ status: number; unavailable: string[] }> {
  const res = await request(`${stack.url}/readyz`);
  return { status: res.status, unavailable: res.body.unavailable };
}

/** One start of the workflow worker: it claims current (or not), /readyz turns 200, and a job completes. */
async function startAndRunAJob(env: NodeJS.ProcessEnv): Promise<VersionLine[]> {
  const worker = spawnLoggingWorkflowWorker(stack.config, env);
  running.push(worker);
  const version = await eventually(
    async () => {
      if (worker.child.exitCode !== null) throw new Error(`the worker exited (${worker.child.exitCode}):\n${worker.output()}`);
      return versionLines(worker)[0];
    },
    120_000,
    200,
    'the worker deployment version logged',
  );
  await eventually(async () => ((await readiness()).status === 200 ? true : undefined), 60_000, 500, `ready on ${version.buildId}`);
  const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: 'pixelforge/forge-pro/text-to-image', input: { prompt: 'a lighthouse' } });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  const job = await waitForFinal(stack, account.apiKey, submitted.body.jobId, 60_000);
  expect(job.status, JSON.stringify(job.error)).toBe('completed');
  const lines = versionLines(worker);
  await sigterm(worker.child);
  expect(worker.child.exitCode, worker.output().slice(-2000)).toBe(0);
  // Its worker said it stopped: no job would start now (seen within a second, the time /readyz reuses an answer).
  const stopped = await eventually(async () => {
    const now = await readiness();
    return now.status === 503 ? now : undefined;
  }, 5_000, 250, 'not ready once the worker stopped');
  expect(stopped.unavailable).toEqual(['workers']);
  return lines;
}

describe('the workflow worker restarted with another setting or another build', () => {
  it('keeps one build across tracing on, off and on, and the first branch takes current back after another ran', async () => {
    const [tracingOn] = await startAndRunAJob({ OTEL_TRACES_EXPORTER: 'console' });
    expect(tracingOn!.outcome).toBe('made-current');
    const buildId = tracingOn!.buildId;
    expect(await startAndRunAJob({})).toMatchObject([{ buildId, outcome: 'already-current' }]);
    expect(await startAndRunAJob({ OTEL_TRACES_EXPORTER: 'console' })).toMatchObject([{ buildId, outcome: 'already-current' }]);

    // Another branch's code is another build (its build id is all Temporal sees of it).
    expect(await startAndRunAJob({ WORKER_BUILD_ID: 'another-branch' })).toMatchObject([{ buildId: 'another-branch', outcome: 'made-current' }]);
    // The first branch again: at once, or once the other build has had no worker for a while, it takes current back.
    const firstBranchAgain = await startAndRunAJob({});
    expect(firstBranchAgain.at(-1)).toMatchObject({ buildId, outcome: 'taken-back', previousBuildId: 'another-branch' });
    expect(firstBranchAgain.at(-1)!.msg).toMatch(/took current back/);
  }, 600_000);
});
