import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';

export const MAINTENANCE_SCHEDULE_ID = 'maintenance';
export const MAINTENANCE_INTERVAL = '1 hour';
export const RECONCILE_SCHEDULE_ID = 'reconcile';
export const RECONCILE_INTERVAL = '1 minute';

async function ensureSchedule(client: Client, scheduleId: string, every: Duration, workflowType: string, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every }] },
      action: { type: 'startWorkflow', workflowType, taskQueue, workflowId: `${scheduleId}-run` },
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
  return ensureSchedule(client, scheduleId, MAINTENANCE_INTERVAL, 'maintenanceWorkflow', taskQueue);
}

/** The `reconcile` schedule: every minute, jobs whose workflow ended without finishing them are failed and refunded. */
export function ensureReconcileSchedule(client: Client, taskQueue: string, scheduleId = RECONCILE_SCHEDULE_ID): Promise<void> {
  return ensureSchedule(client, scheduleId, RECONCILE_INTERVAL, 'reconcileJobsWorkflow', taskQueue);
}
