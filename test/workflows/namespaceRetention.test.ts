/** The workflow tests' own dev servers (test/workflows/temporalEnv.ts) keep closed workflows for the configured retention. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createJobTestEnv, namespaceRetention } from './temporalEnv';

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await createJobTestEnv();
}, 60_000);

afterAll(async () => {
  await env?.teardown();
});

describe('the workflow test environment', () => {
  it("has the project's namespace retention", async () => {
    const described = await env.connection.workflowService.describeNamespace({ namespace: env.namespace ?? 'default' });
    expect(Number(described.config?.workflowExecutionRetentionTtl?.seconds)).toBe(namespaceRetention().seconds);
  });
});
