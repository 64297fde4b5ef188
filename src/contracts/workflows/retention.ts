/**
 * The retention sweep, started by the `output-retention` schedule every outputs.retentionSweepIntervalSeconds
 * (a minute by default): the outputs of completed jobs whose retention has passed are deleted from storage.
 */
import { workflowContract } from './define';

export const RETENTION_SCHEDULE_ID = 'output-retention';

/** One step of the sweep: a batch of jobs whose outputs it deleted. */
export interface RetentionSweepStep {
  jobs: number;
  objects: number;
  bytes: number;
  /** The batch was full: more jobs may be waiting. */
  more: boolean;
}

export interface RetentionSweepResult {
  jobs: number;
  objects: number;
  bytes: number;
  /** Deletions whose `job.outputs_deleted` webhook was found not started and started now. */
  webhooksRecovered: number;
}

export const retentionSweepWorkflowContract = workflowContract<[], RetentionSweepResult>('retentionSweepWorkflow');
