/** A `job_events` row as the API shows it (the `JobEvent` response schema). */
import type { JobEventView } from '../../contracts/http/jobs';
import type { JobOutput } from '../../shared/jobs';
import { toNumber } from '../../shared/money';
import { attemptViewsOfEvent } from '../attempts';
import { isOutputsDeletedReason, signOutputs, type SignOutputUrl } from '../views';
import type { JobEventRow } from './rows';

export async function toEventView(row: JobEventRow, signUrl: SignOutputUrl): Promise<JobEventView> {
  const view: JobEventView = {
    eventId: row.accountSequence.toString(),
    jobId: row.jobId,
    sequence: row.sequence,
    type: row.type as JobEventView['type'],
    createdAt: row.createdAt.toISOString(),
    status: row.status,
    progress: row.progress,
    stage: row.stage,
    queuePosition: row.queuePosition,
    estimatedCompletionTime: row.estimatedCompletionTime?.toISOString() ?? null,
    estimatedCompletionTimeP90: row.estimatedCompletionTimeP90?.toISOString() ?? null,
    estimatedStartTime: row.estimatedStartTime?.toISOString() ?? null,
    placeInLine: row.placeInLine,
  };
  if (row.type === 'job.completed') {
    view.outputs = await signOutputs((row.outputs ?? []) as unknown as JobOutput[], signUrl);
    view.outputsRetainedUntil = row.outputsRetainedUntil?.toISOString() ?? null;
  }
  if (row.type === 'job.outputs_deleted') {
    view.outputsDeletedAt = (row.outputsDeletedAt ?? row.createdAt).toISOString();
    view.outputsDeletedReason = isOutputsDeletedReason(row.outputsDeletedReason) ? row.outputsDeletedReason : 'retention';
  }
  if (row.type === 'job.attempt') view.attempts = attemptViewsOfEvent(row.attempts);
  if (row.errorCode) view.error = { code: row.errorCode, message: row.errorMessage ?? '' };
  if (row.status === 'failed' || row.status === 'cancelled') view.refundedMicroCents = toNumber(row.refundedMicroCents);
  return view;
}
