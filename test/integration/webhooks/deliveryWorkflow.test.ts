/**
 * Webhook delivery through Temporal, PostgreSQL and a real HTTPS receiver, with a compressed retry
 * schedule (0 s, 1 s, 1 s): retries, 410, Retry-After, the job workflow starting the delivery without
 * waiting for it, and the delivery log / redelivery endpoints.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JobActivities } from '../../../activities/jobs';
import type { GenerationActivities } from '../../../activities/generation';
import { createWebhookActivities } from '../../../activities/webhooks';
import { createKeyAuthenticator } from '../../../src/api/auth';
import { createApiMetrics } from '../../../src/api/metrics';
import { createOpenStreams } from '../../../src/api/openStreams';
import { admissionGateFor } from '../../../src/jobs/admissionGate';
import { createApp } from '../../../src/api/app';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import { createJobEventHub, type JobEventHub } from '../../../src/jobs/events/hub';
import { createLogger } from '../../../src/logger';
import type { JobWorkflowInput } from '../../../src/contracts/workflows/job';
import { providerTaskQueue } from '../../../src/shared/temporal';
import { jobWorkflowId } from '../../../src/contracts/workflows/job';
import { webhookWorkflowId, type WebhookDeliveryResult } from '../../../src/contracts/workflows/webhookDelivery';
import type { Storage } from '../../../src/storage/storage';
import { createWebhookDelivery } from '../../../src/webhooks/deliverySteps';
import { webhookEventId } from '../../../src/webhooks/signing';
import { prismaWebhookSources, storedJobRecord } from '../../../src/webhooks/sources';
import { createWebhookStore } from '../../../src/webhooks/store';
import { okHandler, startHttpsReceiver, type HttpsReceiver } from '../../support/httpsReceiver';
import { builtWorkflowBundle } from '../../support/build';
import { createJobTestEnv } from '../../workflows/temporalEnv';
import { createAccount, createApiKey, createFinishedJob, webhookTestConfig, type TestAccount } from './helpers';

const config = webhookTestConfig();
const taskQueue = config.temporal.jobsTaskQueue;
const providerId = `wh-prov-${randomUUID().slice(0, 8)}`;

let env: TestWorkflowEnvironment;
let prisma: PrismaClient;
let receiver: HttpsReceiver;
let account: TestAccount;
let workers: Worker[] = [];
let events: JobEventHub | undefined;
let running: Promise<void>[] = [];
let api: Server;
let apiUrl: string;

/** Job activities that keep no state: the job rows of these tests are written directly. */
const jobActivities: JobActivities = {
  async admitJob(input) {
    const now = new Date().toISOString();
    return { jobId: input.jobId, status: 'pending', costMicroCents: input.costMicroCents, estimatedCompletionTime: now, createdAt: now };
  },
  async cancelPendingJob() {
    return { refundedMicroCents: 0 };
  },
  async stopJobAtDeadline() {
    return { status: 'cancelled', refundedMicroCents: 0 };
  },
  async completeJob() {
    return { deliverOutputs: false };
  },
  async failJob() {
    return { refundedMicroCents: 0 };
  },
  async readJobOutcome() {
    return { status: 'cancelled', refundedMicroCents: 0 };
  },
    async endAttempt() {},
    async planRoutes({ routes }) {
      return { order: routes.map((_, i) => i), unhealthy: [] };
    },
};
const providerActivities: Pick<GenerationActivities, 'startGeneration'> = {
  async startGeneration() {
    return { outcome: 'completed', outputs: [] };
  },
};

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  env = await createJobTestEnv();
  prisma = createPrisma(config.database.url, { poolSize: 4 });
  receiver = await startHttpsReceiver();
  const delivery = createWebhookDelivery({
    store: createWebhookStore(prisma),
    ...prismaWebhookSources(prisma, storedJobRecord),
    config: config.webhooks,
    ca: receiver.caPem,
  });
  workers = [
    await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: builtWorkflowBundle(),
      activities: { ...jobActivities, ...createWebhookActivities(delivery) },
    }),
    await Worker.create({ connection: env.nativeConnection, taskQueue: providerTaskQueue(providerId), activities: providerActivities }),
  ];
  running = workers.map((w) => w.run());

  const logger = createLogger('webhooks-test', 'silent');
  events = createJobEventHub({ prisma, databaseUrl: config.database.url, logger });
  const keys = createKeyAuthenticator(prisma, { ttlMs: config.api.keyCacheTtlMs });
  const app = createApp({ config, prisma, temporal: env.client, storage: {} as Storage, logger, events, keys, metrics: createApiMetrics(), openStreams: createOpenStreams(config.api.openStreams, () => undefined), admissions: admissionGateFor(config) });
  await new Promise<void>((resolve) => {
    api = app.listen(0, '127.0.0.1', () => resolve());
  });
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
}, 180_000);

afterAll(async () => {
  await events?.close();
  api?.close();
  for (const w of workers) w.shutdown();
  await Promise.allSettled(running);
  await receiver?.close();
  await prisma?.$disconnect();
  await env?.teardown();
}, 60_000);

beforeEach(async () => {
  receiver.requests.length = 0;
  receiver.setHandler(okHandler);
  account = await createAccount(prisma);
});

function deliver(jobId: string, eventType: 'job.completed' | 'job.failed' | 'job.cancelled' = 'job.completed') {
  return env.client.workflow.execute('webhookDeliveryWorkflow', {
    taskQueue,
    workflowId: webhookWorkflowId(jobId, eventType),
    args: [{ jobId, eventType }],
  }) as Promise<WebhookDeliveryResult>;
}

function verify(secret: string, request: { body: string; headers: Record<string, unknown> }) {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<string, unknown>;
}

async function attemptsOf(jobId: string) {
  return prisma.webhookAttempt.findMany({ where: { jobId }, orderBy: { attempt: 'asc' } });
}

describe('webhook delivery workflow', () => {
  it('retries through a receiver outage with one webhook-id, each attempt signed and logged', async () => {
    const jobId = await createFinishedJob(prisma, account.id, `${receiver.baseUrl}/hooks/genmedia`);
    let calls = 0;
    receiver.setHandler((_req, res) => {
      calls += 1;
      if (calls === 1) res.socket?.destroy();
      else if (calls === 2) res.writeHead(500).end('down for maintenance');
      else res.writeHead(204).end();
    });

    const result = await deliver(jobId);
    expect(result).toEqual({ eventId: webhookEventId(jobId, 'job.completed'), status: 'delivered', attempts: 3 });

    expect(receiver.requests).toHaveLength(3);
    const ids = new Set(receiver.requests.map((r) => r.headers['webhook-id']));
    expect([...ids]).toEqual([webhookEventId(jobId, 'job.completed')]);
    for (const request of receiver.requests) {
      const event = verify(account.webhookSecret, request);
      expect(event).toMatchObject({ type: 'job.completed', version: 'v1', data: { jobId, status: 'completed', progress: 100 } });
    }
    const gaps = receiver.requests.slice(1).map((r, i) => r.receivedAt.getTime() - receiver.requests[i].receivedAt.getTime());
    expect(gaps.every((ms) => ms >= 900)).toBe(true);

    const attempts = await attemptsOf(jobId);
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.redelivery])).toEqual([
      [1, null, false],
      [2, 500, false],
      [3, 204, false],
    ]);
    expect(attempts[0].error).toMatch(/socket hang up|ECONNRESET|closed/i);
    const event = await prisma.webhookEvent.findUniqueOrThrow({ where: { id: webhookEventId(jobId, 'job.completed') } });
    expect(event.status).toBe('delivered');
    expect(event.deliveredAt).not.toBeNull();
  });

  it('stops at 410 Gone', async () => {
    const jobId = await createFinishedJob(prisma, account.id, `${receiver.baseUrl}/gone`, 'failed');
    receiver.setHandler((_req, res) => res.writeHead(410).end());
    const result = await deliver(jobId, 'job.failed');
    expect(result).toMatchObject({ status: 'failed', attempts: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests).toHaveLength(1);
    expect(verify(account.webhookSecret, receiver.requests[0])).toMatchObject({
      type: 'job.failed',
      data: { error: { code: 'PROVIDER_ERROR' } },
    });
    const event = await prisma.webhookEvent.findUniqueOrThrow({ where: { id: webhookEventId(jobId, 'job.failed') } });
    expect(event.status).toBe('failed');
  });

  it('gives up after the last scheduled attempt and never follows a redirect', async () => {
    const jobId = await createFinishedJob(prisma, account.id, `${receiver.baseUrl}/moved`);
    receiver.setHandler((req, res) => {
      if (req.url === '/moved') res.writeHead(301, { location: `${receiver.baseUrl}/elsewhere` }).end();
      else res.writeHead(200).end();
    });
    const result = await deliver(jobId);
    expect(result).toMatchObject({ status: 'failed', attempts: 3 });
    expect(receiver.requests.map((r) => r.url)).toEqual(['/moved', '/moved', '/moved']);
    const attempts = await attemptsOf(jobId);
    expect(attempts.map((a) => a.statusCode)).toEqual([301, 301, 301]);
    expect(attempts[0].error).toMatch(/not followed/);
    expect((await prisma.webhookEvent.findFirstOrThrow({ where: { jobId } })).status).toBe('failed');
  });

  it('waits as long as Retry-After asks when it exceeds the scheduled step, up to the longest step', async () => {
    const slowConfig = webhookTestConfig({ retryScheduleSeconds: [0, 1, 4] });
    const slowQueue = slowConfig.temporal.jobsTaskQueue;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: slowQueue,
      workflowBundle: builtWorkflowBundle(),
      activities: createWebhookActivities(
        createWebhookDelivery({
          store: createWebhookStore(prisma),
          ...prismaWebhookSources(prisma, storedJobRecord),
          config: slowConfig.webhooks,
          ca: receiver.caPem,
        }),
      ),
    });
    const jobId = await createFinishedJob(prisma, account.id, `${receiver.baseUrl}/busy`);
    let calls = 0;
    receiver.setHandler((_req, res) => {
      calls += 1;
      if (calls === 1) res.writeHead(429, { 'retry-after': '3' }).end();
      else res.writeHead(200).end();
    });
    const result = await worker.runUntil(
      env.client.workflow.execute('webhookDeliveryWorkflow', {
        taskQueue: slowQueue,
        workflowId: webhookWorkflowId(jobId, 'job.completed'),
        args: [{ jobId, eventType: 'job.completed' }],
      }),
    );
    expect(result).toMatchObject({ status: 'delivered', attempts: 2 });
    const [first, second] = receiver.requests;
    // The schedule's step is 1 s; the receiver asked for 3 s.
    expect(second.receivedAt.getTime() - first.receivedAt.getTime()).toBeGreaterThanOrEqual(2900);
  });

  it('signs with both secrets during a rotation', async () => {
    const previous = account.webhookSecret;
    const rotated = await createAccount(prisma, { webhookSecretPrevious: previous, webhookSecretRotatedAt: new Date() });
    const jobId = await createFinishedJob(prisma, rotated.id, `${receiver.baseUrl}/rotating`);
    expect(await deliver(jobId)).toMatchObject({ status: 'delivered' });
    const [request] = receiver.requests;
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(rotated.webhookSecret, request)).toMatchObject({ data: { jobId } });
    expect(verify(previous, request)).toMatchObject({ data: { jobId } });
  });

  it('refuses a private receiver at delivery time without the dev flag', async () => {
    const strict = createWebhookDelivery({
      store: createWebhookStore(prisma),
      ...prismaWebhookSources(prisma, storedJobRecord),
      config: { ...config.webhooks, allowPrivate: false },
      ca: receiver.caPem,
    });
    const jobId = await createFinishedJob(prisma, account.id, `${receiver.baseUrl}/private`);
    const prepared = await strict.prepare({ jobId, eventType: 'job.completed' });
    const result = await strict.attempt({ eventId: prepared!.eventId, attempt: 1, redelivery: false, final: true });
    expect(result.outcome).toBe('retry');
    expect(result.error).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(receiver.requests).toHaveLength(0);
    const [attempt] = await attemptsOf(jobId);
    expect(attempt.error).toMatch(/loopback/);
  });

  it('skips a job without webhookUrl', async () => {
    const jobId = await createFinishedJob(prisma, account.id, null);
    expect(await deliver(jobId)).toEqual({ eventId: null, status: 'skipped', attempts: 0 });
  });
});

describe('job workflow → webhook', () => {
  function jobInput(jobId: string, webhookUrl: string): JobWorkflowInput {
    return {
      jobId,
      accountId: account.id,
      apiKeyId: null,
      requestId: 'req-webhook',
      modelSlug: 'acme/pro/text-to-image',
      modelId: 'acme-pro',
      versionId: 'v1',
      routes: [{ providerId, taskQueue: providerTaskQueue(providerId), expectedProcessingSeconds: 1 }],
      capability: 'text-to-image',
      input: { prompt: 'a red fox' },
      webhookUrl,
      costMicroCents: 45_000,
      admitBefore: new Date(Date.now() + 60_000).toISOString(),
    };
  }

  it('completes the job without waiting for the receiver, then delivers job.completed', async () => {
    const webhookUrl = `${receiver.baseUrl}/slow`;
    const jobId = await createFinishedJob(prisma, account.id, webhookUrl);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    receiver.setHandler(async (_req, res) => {
      await released;
      res.writeHead(200).end();
    });

    const child = env.client.workflow.getHandle(webhookWorkflowId(jobId, 'job.completed'));
    try {
      const result = await env.client.workflow.execute('jobWorkflow', {
        taskQueue,
        workflowId: jobWorkflowId(jobId),
        args: [jobInput(jobId, webhookUrl)],
      });
      expect(result).toMatchObject({ jobId, status: 'completed' });

      const [request] = await receiver.waitForRequests(1);
      expect(request.headers['webhook-id']).toBe(webhookEventId(jobId, 'job.completed'));
      expect((await child.describe()).status.name).toBe('RUNNING');
    } finally {
      release();
    }
    expect(await child.result()).toMatchObject({ status: 'delivered', attempts: 1 });
  });
});

describe('delivery log and redelivery endpoints', () => {
  type Json = any;
  const call = async (method: string, path: string, key: string) => {
    const res = await fetch(`${apiUrl}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, json: async (): Promise<Json> => res.json() };
  };

  it('lists attempts to the owner only', async () => {
    const jobId = await createFinishedJob(prisma, account.id, `${receiver.baseUrl}/log`);
    let calls = 0;
    receiver.setHandler((_req, res) => res.writeHead(++calls === 1 ? 503 : 200).end());
    await deliver(jobId);

    const owner = await createApiKey(prisma, account.id, ['check_status']);
    const res = await call('GET', `/v1/jobs/${jobId}/webhooks`, owner);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      jobId,
      webhookUrl: `${receiver.baseUrl}/log`,
      events: [
        {
          webhookId: webhookEventId(jobId, 'job.completed'),
          type: 'job.completed',
          status: 'delivered',
          attempts: [
            { attempt: 1, statusCode: 503, error: null, redelivery: false },
            { attempt: 2, statusCode: 200, error: null, redelivery: false },
          ],
        },
      ],
    });
    expect(typeof body.events[0].attempts[0].durationMs).toBe('number');
    expect(Date.parse(body.events[0].attempts[0].attemptedAt)).not.toBeNaN();

    const stranger = await createApiKey(prisma, (await createAccount(prisma)).id, ['check_status', 'submit_job']);
    const denied = await call('GET', `/v1/jobs/${jobId}/webhooks`, stranger);
    expect(denied.status).toBe(404);
    expect((await denied.json()).error.code).toBe('JOB_NOT_FOUND');
    const redeliverDenied = await call('POST', `/v1/jobs/${jobId}/webhooks/redeliver`, stranger);
    expect(redeliverDenied.status).toBe(403);
    expect((await redeliverDenied.json()).error.code).toBe('UNAUTHORIZED_ACCESS');

    const missing = await call('GET', `/v1/jobs/job_missing_${randomUUID()}/webhooks`, owner);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('JOB_NOT_FOUND');
  });

  it('redelivers the final event with the same webhook-id and body, a new timestamp and signature', async () => {
    const jobId = await createFinishedJob(prisma, account.id, `${receiver.baseUrl}/replay`);
    await deliver(jobId);
    const [original] = receiver.requests;
    await new Promise((r) => setTimeout(r, 1100));

    const key = await createApiKey(prisma, account.id, ['submit_job', 'check_status']);
    const res = await call('POST', `/v1/jobs/${jobId}/webhooks/redeliver`, key);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({
      jobId,
      webhookId: webhookEventId(jobId, 'job.completed'),
      type: 'job.completed',
      status: 'pending',
    });

    const [, replay] = await receiver.waitForRequests(2);
    expect(replay.headers['webhook-id']).toBe(original.headers['webhook-id']);
    expect(replay.body).toBe(original.body);
    expect(replay.headers['webhook-timestamp']).not.toBe(original.headers['webhook-timestamp']);
    expect(replay.headers['webhook-signature']).not.toBe(original.headers['webhook-signature']);
    expect(verify(account.webhookSecret, replay)).toMatchObject({ data: { jobId } });

    await env.client.workflow.getHandle(`webhook:${jobId}:job.completed:redelivery`).result();
    const log = await (await call('GET', `/v1/jobs/${jobId}/webhooks`, key)).json();
    expect(log.events[0].attempts.map((a: { attempt: number; redelivery: boolean }) => [a.attempt, a.redelivery])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(log.events[0].status).toBe('delivered');
  });

  it('answers 404 WEBHOOK_NOT_FOUND for a job without a webhook event', async () => {
    const jobId = await createFinishedJob(prisma, account.id, null);
    const key = await createApiKey(prisma, account.id, ['submit_job']);
    const res = await call('POST', `/v1/jobs/${jobId}/webhooks/redeliver`, key);
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('WEBHOOK_NOT_FOUND');
  });

  it('requires the scope', async () => {
    const jobId = await createFinishedJob(prisma, account.id, null);
    const key = await createApiKey(prisma, account.id, ['list_models']);
    expect((await call('GET', `/v1/jobs/${jobId}/webhooks`, key)).status).toBe(403);
    expect((await call('POST', `/v1/jobs/${jobId}/webhooks/redeliver`, key)).status).toBe(403);
  });
});
