/** The hourly clean-up of expired records, started by the `maintenance` schedule every workflow worker ensures. */
import { workflowContract } from './define';

export const MAINTENANCE_SCHEDULE_ID = 'maintenance';
export const MAINTENANCE_INTERVAL = '1 hour';

export interface PruneResult {
  idempotencyRecords: number;
  rateLimitCounters: number;
  upstreamCallbacks: number;
  cogPredictions: number;
}

export const maintenanceWorkflowContract = workflowContract<[], PruneResult>('maintenanceWorkflow');
