/**
 * Called once when a job reaches a terminal status, after its row says so.
 * Webhook delivery hooks in here (a child workflow per event); the job's status never waits for it.
 */
import type { JobStatus, JobWorkflowInput } from '../src/shared/jobs';

export interface JobTerminalEvent {
  input: JobWorkflowInput;
  status: Extract<JobStatus, 'completed' | 'failed' | 'cancelled'>;
}

export async function onJobTerminal(_event: JobTerminalEvent): Promise<void> {
  // No webhook delivery yet.
}
