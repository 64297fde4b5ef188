/**
 * Output delivery activities of the `jobs` task queue. `attemptOutputDelivery` never fails for what the customer's
 * bucket does (that is its result); it fails only when our database does, and is then retried.
 */
import { Context } from '@temporalio/activity';
import type { OutputDeliveryInput } from '../src/contracts/workflows/outputDelivery';
import type { OutputDelivery } from '../src/outputs/delivery/steps';
import type { OutputDeliveryAttemptInput, OutputDeliveryAttemptResult, PreparedOutputDelivery } from '../src/shared/outputDelivery';

export interface OutputDeliveryActivities {
  prepareOutputDelivery(input: OutputDeliveryInput): Promise<PreparedOutputDelivery | null>;
  attemptOutputDelivery(input: OutputDeliveryAttemptInput): Promise<OutputDeliveryAttemptResult>;
}

/**
 * The attempt heartbeats with its progress, and only when there is some: each chunk of bytes the bucket's requests
 * take and each request it answers. A copy whose bytes stop moving stops heartbeating, and its heartbeat timeout ends
 * the activity; a crashed worker's copy is tried again as soon.
 */
export function createOutputDeliveryActivities(delivery: OutputDelivery): OutputDeliveryActivities {
  return {
    prepareOutputDelivery: ({ jobId }) => delivery.prepare(jobId),
    async attemptOutputDelivery(input) {
      const context = Context.current();
      const moved = { bytes: 0, requests: 0 };
      context.heartbeat(moved);
      const result = await delivery.attempt(input, (event) => {
        if ('bytes' in event) moved.bytes += event.bytes;
        else moved.requests++;
        // The SDK sends at most one heartbeat per interval, with the latest details.
        context.heartbeat({ ...moved });
      });
      if (result.outcome === 'retry' || result.outcome === 'failed') {
        context.log.warn('output delivery attempt failed', { jobId: input.jobId, attempt: input.attempt, outcome: result.outcome, reason: result.reason });
      }
      return result;
    },
  };
}
