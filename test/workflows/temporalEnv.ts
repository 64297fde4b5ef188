import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { JOB_SEARCH_ATTRIBUTES } from '../../src/contracts/workflows/job';

export const TEMPORAL_CLI_PATH =
  process.env.TEMPORAL_CLI_PATH ?? path.join(os.homedir(), '.cache/genmedia/bin/temporal-1.9.1/temporal');

/** The dynamic configuration that turns task-queue fairness on, as every Temporal of the project has it. */
const { devServerArgs } = createRequire(__filename)('../../scripts/lib/temporalFairness.js') as { devServerArgs(): string[] };

/** A local dev server on a free port with the job search attributes registered and fairness on. */
export function createJobTestEnv(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: TEMPORAL_CLI_PATH },
      searchAttributes: Object.values(JOB_SEARCH_ATTRIBUTES),
      log: { format: 'pretty', level: 'error' },
      extraArgs: devServerArgs(),
    },
  });
}

export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: path.resolve(__dirname, '../../workflows/index.ts'),
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
