/** The raw baseline's worker on a test stack's Temporal, on a task queue of its own. */
import crypto from 'node:crypto';
import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { TestStack } from '../../test/support/stack';
import { baselineActivities } from './activities';

export interface BaselineWorker {
  taskQueue: string;
  stop(): Promise<void>;
}

export async function startBaselineWorker(stack: TestStack): Promise<BaselineWorker> {
  const connection = await NativeConnection.connect({ address: stack.config.temporal.address });
  const taskQueue = `bench-baseline-${crypto.randomBytes(4).toString('hex')}`;
  const worker = await Worker.create({
    connection,
    namespace: stack.config.temporal.namespace,
    taskQueue,
    workflowsPath: path.join(__dirname, 'workflows.ts'),
    activities: baselineActivities,
  });
  const running = worker.run();
  return {
    taskQueue,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
