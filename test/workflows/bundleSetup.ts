/**
 * Global setup of the workflows project: the workflow code bundled once for all its files (sharedBundle.ts), instead
 * of once per file (webpack takes two seconds of CPU each time).
 */
import type { TestProject } from 'vitest/node';
import { bundleWorkflows } from './temporalEnv';

export default async function setup(project: TestProject): Promise<void> {
  project.provide('workflowBundle', await bundleWorkflows());
}
