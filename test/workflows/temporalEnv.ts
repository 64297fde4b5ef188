import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { msNumberToTs } from '@temporalio/common/lib/time';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { JOB_SEARCH_ATTRIBUTES } from '../../src/contracts/workflows/job';

export const TEMPORAL_CLI_PATH =
  process.env.TEMPORAL_CLI_PATH ?? path.join(os.homedir(), '.cache/genmedia/bin/temporal-1.9.1/temporal');

const requireScript = createRequire(__filename);
/** The dynamic configuration that turns task-queue fairness on, as every Temporal of the project has it. */
const { devServerArgs } = requireScript('../../scripts/lib/temporalFairness.js') as { devServerArgs(): string[] };
/** The namespace retention every Temporal of the project is given. */
export const { namespaceRetention } = requireScript('../../scripts/lib/temporalRetention.js') as {
  namespaceRetention(env?: NodeJS.ProcessEnv): { text: string; seconds: number };
};

/**
 * A local dev server on a free port with the job search attributes registered, fairness on and the project's
 * namespace retention (the dev server creates its namespace with one of its own).
 */
export async function createJobTestEnv(): Promise<TestWorkflowEnvironment> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: TEMPORAL_CLI_PATH },
      searchAttributes: Object.values(JOB_SEARCH_ATTRIBUTES),
      log: { format: 'pretty', level: 'error' },
      extraArgs: devServerArgs(),
    },
  });
  await env.connection.workflowService.updateNamespace({
    namespace: env.namespace ?? 'default',
    config: { workflowExecutionRetentionTtl: msNumberToTs(namespaceRetention().seconds * 1000) },
  });
  return env;
}

export function bundleWorkflows(workflowInterceptorModules: string[] = []): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: path.resolve(__dirname, '../../workflows/index.ts'),
    workflowInterceptorModules,
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  });
}

/** Keeps worker state chatter out of test output; a no-op when this process already has a Runtime. */
export function quietTemporalLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // already installed
  }
}
