import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { WorkflowContract } from '../contracts/workflows/define';
import { MAINTENANCE_INTERVAL, MAINTENANCE_SCHEDULE_ID, maintenanceWorkflowContract } from '../contracts/workflows/maintenance';
import { RECONCILE_INTERVAL, RECONCILE_SCHEDULE_ID, reconcileJobsWorkflowContract } from '../contracts/workflows/reconcile';
import { scheduledStart } from '../temporal/workflows';

async function ensureSchedule(
  client: Client,
  scheduleId: string,
  every: Duration,
  contract: WorkflowContract<[], unknown> | WorkflowContract<[unknown?], unknown>,
  taskQueue: string,
): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every }] },
      action: scheduledStart(contract, { taskQueue, workflowId: `${scheduleId}-run` }),
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

/**
 * Makes sure the hourly `maintenance` schedule exists (visible under Schedules in the Temporal UI).
 * Every workflow worker calls this at start; the first one creates it, the others find it there.
 */
export function ensureMaintenanceSchedule(client: Client, taskQueue: string, scheduleId = MAINTENANCE_SCHEDULE_ID): Promise<void> {
  return ensureSchedule(client, scheduleId, MAINTENANCE_INTERVAL, maintenanceWorkflowContract, taskQueue);
}

/** The `reconcile` schedule: every minute, jobs whose workflow ended without finishing them are failed and refunded. */
export function ensureReconcileSchedule(client: Client, taskQueue: string, scheduleId = RECONCILE_SCHEDULE_ID): Promise<void> {
  return ensureSchedule(client, scheduleId, RECONCILE_INTERVAL, reconcileJobsWorkflowContract, taskQueue);
}
