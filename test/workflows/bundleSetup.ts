/** Global setup of the workflows project: one workflow bundle for all its files, instead of one per file. */
import type { TestProject } from 'vitest/node';
import { buildWorkflowBundle } from './temporalEnv';

export default async function setup(project: TestProject): Promise<void> {
  project.provide('workflowBundle', await buildWorkflowBundle());
}
