/** The workflow bundle of a test file: the one the workflows project built once for the run, else one of its own. */
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { inject } from 'vitest';
import { bundleWorkflows } from './temporalEnv';

declare module 'vitest' {
  export interface ProvidedContext {
    workflowBundle?: WorkflowBundleWithSourceMap;
  }
}

export function sharedWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  const built = inject('workflowBundle');
  return built ? Promise.resolve(built) : bundleWorkflows();
}
