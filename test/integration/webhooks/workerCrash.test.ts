/**
 * A worker killed (SIGKILL) in the middle of a delivery attempt: the attempt's heartbeat stops, Temporal
 * retries it on another worker, and the receiver gets the same event (same webhook-id) again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import { webhookWorkflowId, type WebhookDeliveryResult } from '../../../src/contracts/workflows/webhookDelivery';
import { webhookEventId } from '../../../src/webhooks/signing';
import { startHttpsReceiver, type HttpsReceiver } from '../../support/httpsReceiver';
import { builtWorkflowBundle } from '../../support/build';
import { testTuningFile } from '../../support/stack';
import { createJobTestEnv } from '../../workflows/temporalEnv';
import { createAccount, createFinishedJob, webhookTestConfig } from './helpers';

const config = webhookTestConfig({ timeoutMs: 10_000 });
const taskQueue = config.temporal.jobsTaskQueue;
const WORKER_SCRIPT = path.join(__dirname, 'fixtures', 'webhookActivityWorker.ts');

let env: TestWorkflowEnvironment;
let prisma: PrismaClient;
let receiver: HttpsReceiver;
const children: ChildProcess[] = [];

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  env = await createJobTestEnv();
  prisma = createPrisma(config.database.url, { poolSize: 2 });
  receiver = await startHttpsReceiver();
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await receiver?.close();
  await prisma?.$disconnect();
  await env?.teardown();
}, 60_000);

/** Starts an activity-only worker process and resolves once it polls. */
function startActivityWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_SCRIPT], {
    env: {
      ...process.env,
      DATABASE_URL: config.database.url,
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_TASK_QUEUE_PREFIX: config.temporal.taskQueuePrefix,
      WEBHOOK_ALLOW_PRIVATE: '1',
      // The schedule and the 10 s timeout of `config`.
      GENMEDIA_TEST_TUNING: testTuningFile(config),
      NODE_EXTRA_CA_CERTS: receiver.caPath,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('activity worker did not start within 60 s')), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on('exit', (code) => reject(new Error(`activity worker exited with ${code}`)));
  });
}

it('delivers an event whose worker was killed during the attempt', async () => {
  const account = await createAccount(prisma);
  const jobId = await createFinishedJob(prisma, account.id, `${receiver.baseUrl}/crash`);
  let calls = 0;
  receiver.setHandler((_req, res) => {
    calls += 1;
    if (calls > 1) res.writeHead(200).end(); // the first request is left hanging
  });

  const workflowWorker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: builtWorkflowBundle(),
  });
  const result = await workflowWorker.runUntil(async () => {
    const first = await startActivityWorker();
    const handle = await env.client.workflow.start('webhookDeliveryWorkflow', {
      taskQueue,
      workflowId: webhookWorkflowId(jobId, 'job.completed'),
      args: [{ jobId, eventType: 'job.completed' }],
    });
    await receiver.waitForRequests(1, 30_000);
    first.kill('SIGKILL');
    await startActivityWorker();
    return (await handle.result()) as WebhookDeliveryResult;
  });

  expect(result).toMatchObject({ status: 'delivered', attempts: 1 });
  expect(receiver.requests).toHaveLength(2);
  const eventId = webhookEventId(jobId, 'job.completed');
  expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
  const delivered = receiver.requests[1];
  expect(new Webhook(account.webhookSecret).verify(delivered.body, delivered.headers as Record<string, string>)).toMatchObject({
    type: 'job.completed',
    data: { jobId },
  });
  const attempts = await prisma.webhookAttempt.findMany({ where: { jobId } });
  expect(attempts.map((a) => [a.attempt, a.statusCode])).toEqual([[1, 200]]);
  expect((await prisma.webhookEvent.findUniqueOrThrow({ where: { id: eventId } })).status).toBe('delivered');
}, 120_000);
