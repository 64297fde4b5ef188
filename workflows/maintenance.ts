/** Housekeeping run by the `maintenance` schedule: keeps bookkeeping tables from growing without end. */
import { proxyActivities } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance';
import type { PruneResult } from '../src/contracts/workflows/maintenance';

const { pruneExpiredRecords } = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});

export async function maintenanceWorkflow(): Promise<PruneResult> {
  return pruneExpiredRecords();
}
