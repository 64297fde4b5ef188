/**
 * Webhook delivery activities of the `jobs` task queue. `attemptWebhookDelivery` never fails for an
 * HTTP outcome (that is its result); it fails only when the database does, and is then retried.
 */
import { Context } from '@temporalio/activity';
import type { PreparedWebhookEvent, WebhookAttemptInput, WebhookAttemptSummary } from '../src/shared/webhooks';
import type { WebhookDeliveryInput } from '../src/contracts/workflows/webhookDelivery';
import type { WebhookDelivery } from '../src/webhooks/deliverySteps';

export interface WebhookActivities {
  prepareWebhookEvent(input: WebhookDeliveryInput): Promise<PreparedWebhookEvent | null>;
  attemptWebhookDelivery(input: WebhookAttemptInput): Promise<WebhookAttemptSummary>;
}

/** Heartbeats let a crashed worker's attempt be retried within seconds rather than after its whole timeout. */
export const WEBHOOK_HEARTBEAT_INTERVAL_MS = 1000;

export function createWebhookActivities(delivery: WebhookDelivery): WebhookActivities {
  return {
    prepareWebhookEvent: (input) => delivery.prepare(input),
    async attemptWebhookDelivery(input) {
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), WEBHOOK_HEARTBEAT_INTERVAL_MS);
      try {
        return await delivery.attempt(input);
      } finally {
        clearInterval(beat);
      }
    },
  };
}
