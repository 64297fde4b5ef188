import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { msToNumber } from '@temporalio/common/lib/time';
import type { Duration } from '@temporalio/common';
import type { WorkflowContract } from '../contracts/workflows/define';
import { MAINTENANCE_INTERVAL, MAINTENANCE_SCHEDULE_ID, maintenanceWorkflowContract } from '../contracts/workflows/maintenance';
import { RETENTION_SCHEDULE_ID, retentionSweepWorkflowContract } from '../contracts/workflows/retention';
import { RECONCILE_INTERVAL, RECONCILE_SCHEDULE_ID, reconcileJobsWorkflowContract } from '../contracts/workflows/reconcile';
import { scheduledStart } from '../temporal/workflows';

/** Creates the schedule; one already there keeps its settings unless `keepInterval` is false and its interval differs. */
async function ensureSchedule(
  client: Client,
  scheduleId: string,
  every: Duration,
  contract: WorkflowContract<[], unknown> | WorkflowContract<[unknown?], unknown>,
  taskQueue: string,
  keepInterval = true,
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
    if (keepInterval) return;
    const handle = client.schedule.getHandle(scheduleId);
    const current = await handle.describe();
    if (current.spec.intervals?.length === 1 && msToNumber(current.spec.intervals[0].every) === msToNumber(every)) return;
    await handle.update((schedule) => ({ ...schedule, spec: { intervals: [{ every }] } }));
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

/**
 * The `output-retention` schedule: every `intervalSeconds` (outputs.retentionSweepIntervalSeconds), the outputs
 * whose retention has passed are deleted. A worker started with another interval moves the schedule to it.
 */
export function ensureRetentionSchedule(client: Client, taskQueue: string, intervalSeconds: number, scheduleId = RETENTION_SCHEDULE_ID): Promise<void> {
  return ensureSchedule(client, scheduleId, intervalSeconds * 1000, retentionSweepWorkflowContract, taskQueue, false);
}
