/**
 * A self-contained uploads environment on the real PostgreSQL, Temporal and MinIO: own buckets, own task queue,
 * the API app on port 0 and the `jobs` worker, which can be stopped and started again.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { Scope } from '../../../src/shared/scopes';
import { createKeyAuthenticator } from '../../../src/api/auth';
import { createApiMetrics } from '../../../src/api/metrics';
import { createOpenStreams } from '../../../src/api/openStreams';
import { admissionGateFor } from '../../../src/jobs/admissionGate';
import { createApp } from '../../../src/api/app';
import type { ApiDeps } from '../../../src/api/deps';
import { loadConfig, type Config } from '../../../src/config';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import { createJobEventHub, type JobEventHub } from '../../../src/jobs/events/hub';
import { createLogger } from '../../../src/logger';
import { jobWorkflowId } from '../../../src/contracts/workflows/job';
import { uploadWorkflowId } from '../../../src/contracts/workflows/uploadExpiry';
import { createStorage, type Storage } from '../../../src/storage/storage';
import { createWorkflowWorker } from '../../../src/workers/workflowWorker';
import { createTestAccount } from '../../support/accounts';
import { builtWorkflowBundle } from '../../support/build';

let runtimeInstalled = false;

export interface TestAccount {
  accountId: string;
  apiKey: string;
}

export interface UploadTestEnv {
  config: Config;
  prisma: PrismaClient;
  storage: Storage;
  temporal: Client;
  taskQueue: string;
  /** Starts an API with these upload windows (seconds); returns its base URL. */
  startApi(uploads?: Partial<Config['uploads']>): Promise<{ baseUrl: string; deps: ApiDeps }>;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  createAccount(scopes?: Scope[]): Promise<TestAccount>;
  close(): Promise<void>;
}

export async function createUploadTestEnv(): Promise<UploadTestEnv> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    runtimeInstalled = true;
  }
  const suffix = crypto.randomBytes(4).toString('hex');
  const config = loadConfig({
    ...process.env,
    UPLOADS_BUCKET: `test-uploads-${suffix}`,
    OUTPUTS_BUCKET: `test-outputs-${suffix}`,
    TEMPORAL_TASK_QUEUE_PREFIX: `uploads-test-${suffix}-`,
    LOG_LEVEL: 'silent',
  });
  const taskQueue = config.temporal.jobsTaskQueue;
  const prisma = createPrisma(config.database.url, { poolSize: 4 });
  const storage = createStorage(config.minio);
  await storage.ensureBuckets();
  const connection = await Connection.connect({ address: config.temporal.address });
  const temporal = new Client({ connection, namespace: config.temporal.namespace });

  const servers: http.Server[] = [];
  const hubs: JobEventHub[] = [];
  const accountIds: string[] = [];
  let worker: Worker | undefined;
  let workerRun: Promise<void> | undefined;
  let workerConnection: NativeConnection | undefined;

  const env: UploadTestEnv = {
    config,
    prisma,
    storage,
    temporal,
    taskQueue,

    async startApi(uploads = {}) {
      const server = http.createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const apiConfig: Config = {
        ...config,
        api: { ...config.api, publicBaseUrl: baseUrl },
        uploads: { ...config.uploads, ...uploads },
      };
      const logger = createLogger('uploads-test', 'silent');
      const events = createJobEventHub({ prisma, databaseUrl: config.database.url, logger });
      hubs.push(events);
      const keys = createKeyAuthenticator(prisma, { ttlMs: apiConfig.api.keyCacheTtlMs });
      const deps: ApiDeps = { config: apiConfig, prisma, storage, temporal, logger, events, keys, metrics: createApiMetrics(), openStreams: createOpenStreams(apiConfig.api.openStreams, () => undefined), admissions: admissionGateFor(apiConfig) };
      server.on('request', createApp(deps));
      return { baseUrl, deps };
    },

    async startWorker() {
      workerConnection ??= await NativeConnection.connect({ address: config.temporal.address });
      // The real `jobs` worker (every workflow and its activities) on this environment's own task queue.
      worker = await createWorkflowWorker({ config, connection: workerConnection, client: temporal, prisma, storage, workflowBundle: builtWorkflowBundle() });
      workerRun = worker.run();
    },

    async stopWorker() {
      if (!worker) return;
      worker.shutdown();
      await workerRun;
      worker = undefined;
    },

    async createAccount(scopes: Scope[] = ['upload', 'submit_job', 'check_status']) {
      const account = await createTestAccount(prisma, { name: 'upload test', scopes });
      accountIds.push(account.accountId);
      return { accountId: account.accountId, apiKey: account.apiKey };
    },

    async close() {
      await env.stopWorker();
      await workerConnection?.close();
      // Long-lived timers of this run's uploads would otherwise wait on a task queue nobody serves.
      const uploads = await prisma.upload.findMany({ where: { accountId: { in: accountIds } }, select: { id: true } });
      const jobs = await prisma.job.findMany({ where: { accountId: { in: accountIds } }, select: { id: true } });
      const workflowIds = [...uploads.map((u) => uploadWorkflowId(u.id)), ...jobs.map((j) => jobWorkflowId(j.id))];
      for (const id of workflowIds) {
        await temporal.workflow.getHandle(id).terminate('test finished').catch(() => undefined);
      }
      for (const hub of hubs) await hub.close();
      for (const server of servers) await new Promise((resolve) => server.close(resolve));
      for (const bucket of [storage.uploadsBucket, storage.outputsBucket]) {
        for (const accountId of accountIds) await storage.removePrefix(bucket, `${accountId}/`).catch(() => undefined);
        await storage.client.removeBucket(bucket).catch(() => undefined);
      }
      await prisma.account.deleteMany({ where: { id: { in: accountIds } } });
      await prisma.$disconnect();
      await connection.close();
    },
  };
  return env;
}

export async function presign(
  baseUrl: string,
  apiKey: string,
  body: unknown,
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${baseUrl}/v1/uploads/presign`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

export async function uploadStatus(baseUrl: string, apiKey: string, fileId: string) {
  const res = await fetch(`${baseUrl}/v1/uploads/${fileId}`, { headers: { authorization: `Bearer ${apiKey}` } });
  return { status: res.status, json: (await res.json()) as any };
}

export async function putBytes(uploadUrl: string, contentType: string, bytes: Uint8Array) {
  return fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': contentType }, body: bytes });
}
