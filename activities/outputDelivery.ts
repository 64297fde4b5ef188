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

/** Heartbeats let a crashed worker's copy be tried again within seconds rather than after its whole timeout. */
export const OUTPUT_DELIVERY_HEARTBEAT_INTERVAL_MS = 2000;

export function createOutputDeliveryActivities(delivery: OutputDelivery): OutputDeliveryActivities {
  return {
    prepareOutputDelivery: ({ jobId }) => delivery.prepare(jobId),
    async attemptOutputDelivery(input) {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), OUTPUT_DELIVERY_HEARTBEAT_INTERVAL_MS);
      try {
        const result = await delivery.attempt(input);
        if (result.outcome !== 'delivered') context.log.warn('output delivery attempt failed', { jobId: input.jobId, attempt: input.attempt, outcome: result.outcome, reason: result.reason });
        return result;
      } finally {
        clearInterval(beat);
      }
    },
  };
}
