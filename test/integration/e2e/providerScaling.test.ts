/**
 * Two provider worker processes (`src/workers/main.ts --provider pixelforge`) on one provider queue share its
 * jobs, and each honours the per-provider concurrency from config (PROVIDER_CONCURRENCY=pixelforge=1).
 * Handing a job over after SIGKILL and draining on SIGTERM are proven in test/integration/jobs/workerRestart.test.ts
 * and workerProcess.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { providerTaskQueue } from '../../../src/shared/temporal';
import { createTestAccount, eventually, workerProcessEnv } from '../../support/stack';
import { post, startE2eStack, waitForFinal, type E2eStack } from './e2eStack';
import { builtArgs } from '../../support/build';

let stack: E2eStack;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // 30 s nominal × 0.05: each image job takes about 1.5 s.
  stack = await startE2eStack({ tuning: { providers: { timeScale: 0.05 } } });
});

afterAll(async () => {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }),
  );
  await stack?.stop();
});

function startProviderProcess(providerId: string): ChildProcess {
  const child = spawn(process.execPath, builtArgs(path.join('src', 'workers', 'main.ts'), ['--provider', providerId]), {
    cwd: REPO_ROOT,
    env: { ...workerProcessEnv(stack.config), PROVIDER_CONCURRENCY: `${providerId}=1` },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

/** Identities of the workers polling an activity task queue. */
async function activityPollers(taskQueue: string): Promise<string[]> {
  const res = await stack.deps.temporal.workflowService.describeTaskQueue({
    namespace: stack.config.temporal.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  return (res.pollers ?? []).map((p) => p.identity ?? '');
}

interface ProviderRun {
  jobId: string;
  identity: string;
  /** The job's claim, the provider activity's first step (jobs.started_at). */
  startedAt: number;
  /**
   * When the activity stored its output, its last step. (The ActivityTaskCompleted event is no end marker: the
   * worker frees the slot before it reports the completion, so its next task can start a moment earlier.)
   */
  finishedAt: number;
}

async function providerRun(jobId: string): Promise<ProviderRun> {
  const events = await stack.history(jobId);
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'startGeneration')!;
  const started = events.find((e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled.eventId))!;
  const job = await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
  const storage = stack.workers.storage;
  // The listing carries milliseconds (a HEAD's Last-Modified only seconds).
  let storedAt: Date | undefined;
  for await (const item of storage.client.listObjectsV2(storage.outputsBucket, `${jobId}/`, true)) storedAt = item.lastModified;
  return {
    jobId,
    identity: started.activityTaskStartedEventAttributes!.identity!,
    startedAt: job.startedAt!.getTime(),
    finishedAt: storedAt!.getTime(),
  };
}

describe('several provider worker processes on one queue', () => {
  it('share the jobs, each running at most its configured concurrency at a time', async () => {
    const providerQueue = providerTaskQueue('pixelforge', stack.config.temporal.providerTaskQueuePrefix);
    const processes = [startProviderProcess('pixelforge'), startProviderProcess('pixelforge')];
    const identities = processes.map((child) => `${child.pid}@${os.hostname()}`);
    // Both processes poll before any job is submitted, so neither can take everything by starting first.
    await eventually(async () => {
      const pollers = await activityPollers(providerQueue);
      return identities.every((id) => pollers.includes(id)) ? true : undefined;
    }, 60_000, 250);

    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 20 });
    const jobIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
        model: 'pixelforge/forge-lite/text-to-image',
        input: { prompt: `shared load ${i}`, size: 'landscape_16_9' },
      });
      expect(submitted.status).toBe(201);
      jobIds.push(submitted.body.jobId);
    }
    for (const jobId of jobIds) expect((await waitForFinal(stack, account.apiKey, jobId)).status).toBe('completed');

    const runs = await Promise.all(jobIds.map(providerRun));
    const byWorker = new Map<string, ProviderRun[]>();
    for (const run of runs) byWorker.set(run.identity, [...(byWorker.get(run.identity) ?? []), run]);
    // Both processes took jobs, and nobody else did.
    expect([...byWorker.keys()].sort()).toEqual([...identities].sort());
    // With concurrency 1 a process starts its next job only after the previous one's provider activity has finished.
    for (const list of byWorker.values()) {
      list.sort((a, b) => a.startedAt - b.startedAt);
      for (let i = 1; i < list.length; i++) expect(list[i].startedAt).toBeGreaterThanOrEqual(list[i - 1].finishedAt);
    }
    // ...while the two processes did run jobs at the same time.
    const [a, b] = [...byWorker.values()];
    expect(a.some((x) => b.some((y) => x.startedAt < y.finishedAt && y.startedAt < x.finishedAt))).toBe(true);
  }, 120_000);
});
