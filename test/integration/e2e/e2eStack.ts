/**
 * A whole service for end-to-end tests: the shared test stack (API whose PUBLIC_BASE_URL is its own port, the
 * `jobs` worker optionally trusting a webhook receiver's CA, provider workers, all on private task queues),
 * plus views into storage and workflow history.
 */
import type { ChildProcess } from 'node:child_process';
import type { WorkflowHandle } from '@temporalio/client';
import type { ApiDeps } from '../../../src/api/deps';
import { jobWorkflowId } from '../../../src/contracts/workflows/job';
import { post } from '../../support/api';
import { spawnProviderWorker } from '../../support/processes';
import { startTestStack, type TestStack, type TestStackOptions } from '../../support/stack';

export type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

export interface E2eStack extends TestStack {
  deps: ApiDeps;
  /** Outputs bucket object names under `<jobId>/`. */
  storedOutputs(jobId: string): Promise<string[]>;
  /** Event attributes of the job workflow's history. */
  history(jobId: string): Promise<HistoryEvent[]>;
}

export async function startE2eStack(options: TestStackOptions = {}): Promise<E2eStack> {
  const stack = await startTestStack(options);
  const deps = stack.api.deps;
  return {
    ...stack,
    deps,
    async storedOutputs(jobId) {
      const names: string[] = [];
      const stream = deps.storage.client.listObjectsV2(deps.storage.outputsBucket, `${jobId}/`, true);
      for await (const item of stream) if (item.name) names.push(item.name);
      return names;
    },
    async history(jobId) {
      const history = await deps.temporal.workflow.getHandle(jobWorkflowId(jobId)).fetchHistory();
      return history.events ?? [];
    },
  };
}

export { bearer, get, post, waitForFinal } from '../../support/api';

/** Presigns an upload, PUTs the bytes with the declared type; returns the `fileUrl`. */
export async function uploadFile(stack: { url: string }, apiKey: string, filename: string, contentType: string, bytes: Buffer): Promise<string> {
  const presigned = await post(`${stack.url}/v1/uploads/presign`, apiKey, { filename, contentType });
  if (presigned.status !== 200 && presigned.status !== 201) throw new Error(`presign answered ${presigned.status}: ${JSON.stringify(presigned.body)}`);
  const put = await fetch(presigned.body.data.uploadUrl, { method: 'PUT', headers: { 'content-type': contentType }, body: bytes });
  if (put.status !== 200) throw new Error(`PUT answered ${put.status}: ${await put.text()}`);
  return presigned.body.data.fileUrl;
}

/** Ledger rows of a job as [kind, amount]. */
export async function ledgerOf(stack: { prisma: TestStack['prisma'] }, jobId: string): Promise<Array<[string, bigint]>> {
  const rows = await stack.prisma.ledgerEntry.findMany({ where: { jobId }, orderBy: { id: 'asc' } });
  return rows.map((r) => [r.kind, r.amountMicroCents]);
}

export async function balanceOf(stack: { prisma: TestStack['prisma'] }, accountId: string): Promise<bigint> {
  return (await stack.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).balanceMicroCents;
}

/** A provider worker in a process of its own. */
export function startWorkerProcess(stack: E2eStack, providerId: string): ChildProcess {
  return spawnProviderWorker(stack.config, providerId);
}

/** SIGKILLs a worker process and waits for it to be gone. */
export { sigkill as killWorkerProcess } from '../../support/processes';
