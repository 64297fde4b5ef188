/**
 * TEMPORAL_TASK_QUEUE_PREFIX names every Temporal name of a deployment: the workflow worker's task queue, the provider
 * task queues and the worker deployment. Empty by default, so the names are `jobs`, `provider.<id>` and `genmedia`;
 * tests give each stack its own prefix.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { providerTaskQueue } from '../../../src/shared/temporal';

describe('TEMPORAL_TASK_QUEUE_PREFIX', () => {
  it('unset: the names of a deployment', () => {
    const { temporal } = loadConfig({});
    expect(temporal.jobsTaskQueue).toBe('jobs');
    expect(providerTaskQueue('pixelforge', temporal.providerTaskQueuePrefix)).toBe('provider.pixelforge');
    expect(temporal.deployment?.deploymentName).toBe('genmedia');
  });

  it('set: before every name', () => {
    const { temporal } = loadConfig({ TEMPORAL_TASK_QUEUE_PREFIX: 'staging-' });
    expect(temporal.jobsTaskQueue).toBe('staging-jobs');
    expect(providerTaskQueue('pixelforge', temporal.providerTaskQueuePrefix)).toBe('staging-provider.pixelforge');
    expect(temporal.deployment?.deploymentName).toBe('staging-genmedia');
  });

  it('refuses a prefix Temporal would refuse in a worker deployment name, naming it', () => {
    for (const prefix of ['my stack-', 'staging.']) {
      expect(() => loadConfig({ TEMPORAL_TASK_QUEUE_PREFIX: prefix })).toThrow(/^Invalid environment: TEMPORAL_TASK_QUEUE_PREFIX: must be letters, digits, - and _/);
    }
  });
});
