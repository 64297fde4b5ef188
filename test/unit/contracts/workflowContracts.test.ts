/**
 * Each workflow contract names a workflow the worker registers, and that workflow takes and returns what the
 * contract promises to the processes that start it (checked by the type checker through expectTypeOf).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as workflows from '../../../workflows';
import type { WorkflowOf } from '../../../src/contracts/workflows/define';
import { batchWorkflowContract } from '../../../src/contracts/workflows/batch';
import { accountErasureWorkflowContract, jobErasureWorkflowContract } from '../../../src/contracts/workflows/erasure';
import { jobEventWebhooksWorkflowContract } from '../../../src/contracts/workflows/jobEventWebhooks';
import { jobWorkflowContract } from '../../../src/contracts/workflows/job';
import { outputDeliveryWorkflowContract } from '../../../src/contracts/workflows/outputDelivery';
import { maintenanceWorkflowContract } from '../../../src/contracts/workflows/maintenance';
import { reconcileJobsWorkflowContract } from '../../../src/contracts/workflows/reconcile';
import { retentionSweepWorkflowContract } from '../../../src/contracts/workflows/retention';
import { uploadExpiryWorkflowContract } from '../../../src/contracts/workflows/uploadExpiry';
import { webhookDeliveryWorkflowContract } from '../../../src/contracts/workflows/webhookDelivery';

const contracts = [
  jobWorkflowContract,
  webhookDeliveryWorkflowContract,
  jobEventWebhooksWorkflowContract,
  uploadExpiryWorkflowContract,
  maintenanceWorkflowContract,
  reconcileJobsWorkflowContract,
  outputDeliveryWorkflowContract,
  retentionSweepWorkflowContract,
  jobErasureWorkflowContract,
  accountErasureWorkflowContract,
  batchWorkflowContract,
];

describe('workflow contracts', () => {
  it('name every workflow the jobs task queue registers, each once', () => {
    const registered = Object.entries(workflows).filter(([, value]) => typeof value === 'function').map(([name]) => name);
    expect(contracts.map((c) => c.workflowType).sort()).toEqual(registered.sort());
    for (const contract of contracts) expect(contract.defaultTaskQueue).toBe('jobs');
  });

  it('promise the call each workflow has', () => {
    expectTypeOf(workflows.jobWorkflow).toEqualTypeOf<WorkflowOf<typeof jobWorkflowContract>>();
    expectTypeOf(workflows.webhookDeliveryWorkflow).toEqualTypeOf<WorkflowOf<typeof webhookDeliveryWorkflowContract>>();
    expectTypeOf(workflows.jobEventWebhooksWorkflow).toEqualTypeOf<WorkflowOf<typeof jobEventWebhooksWorkflowContract>>();
    expectTypeOf(workflows.uploadExpiryWorkflow).toEqualTypeOf<WorkflowOf<typeof uploadExpiryWorkflowContract>>();
    expectTypeOf(workflows.maintenanceWorkflow).toEqualTypeOf<WorkflowOf<typeof maintenanceWorkflowContract>>();
    expectTypeOf(workflows.reconcileJobsWorkflow).toEqualTypeOf<WorkflowOf<typeof reconcileJobsWorkflowContract>>();
    expectTypeOf(workflows.outputDeliveryWorkflow).toEqualTypeOf<WorkflowOf<typeof outputDeliveryWorkflowContract>>();
    expectTypeOf(workflows.retentionSweepWorkflow).toEqualTypeOf<WorkflowOf<typeof retentionSweepWorkflowContract>>();
    expectTypeOf(workflows.jobErasureWorkflow).toEqualTypeOf<WorkflowOf<typeof jobErasureWorkflowContract>>();
    expectTypeOf(workflows.batchWorkflow).toEqualTypeOf<WorkflowOf<typeof batchWorkflowContract>>();
    expectTypeOf(workflows.accountErasureWorkflow).toEqualTypeOf<WorkflowOf<typeof accountErasureWorkflowContract>>();
  });
});
