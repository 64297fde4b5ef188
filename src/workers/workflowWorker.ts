import path from 'node:path';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { REPO_ROOT, type Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import type { Storage } from '../storage/storage';

export const WORKFLOWS_PATH = path.join(REPO_ROOT, 'workflows', 'index.ts');

export interface WorkflowWorkerDeps {
  config: Config;
  connection: NativeConnection;
  /** For activities that read workflow state (the reconciler). */
  client: Client;
  prisma: PrismaClient;
  storage: Storage;
  /** A prebuilt bundle (tests build one once); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkflowBundleOption;
  /** Extra CA for webhook receivers (tests with their own CA); production relies on NODE_EXTRA_CA_CERTS. */
  webhookCa?: string;
}

/** The worker of the `jobs` task queue: every workflow and the non-provider activities. */
export function createWorkflowWorker(deps: WorkflowWorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: deps.config.temporal.jobsTaskQueue,
    ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities({ config: deps.config, prisma: deps.prisma, storage: deps.storage, temporal: deps.client, webhookCa: deps.webhookCa }),
    shutdownGraceTime: '30 seconds',
  });
}
