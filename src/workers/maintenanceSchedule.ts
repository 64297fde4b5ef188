import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';

export const MAINTENANCE_SCHEDULE_ID = 'maintenance';
export const MAINTENANCE_INTERVAL = '1 hour';

/**
 * Makes sure the hourly `maintenance` schedule exists (visible under Schedules in the Temporal UI).
 * Every workflow worker calls this at start; the first one creates it, the others find it there.
 */
export async function ensureMaintenanceSchedule(client: Client, taskQueue: string, scheduleId = MAINTENANCE_SCHEDULE_ID): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: MAINTENANCE_INTERVAL }] },
      action: { type: 'startWorkflow', workflowType: 'maintenanceWorkflow', taskQueue, workflowId: `${scheduleId}-run` },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
