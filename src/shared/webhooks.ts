/** Webhook event types and the types shared by the API, the workflows and the activities. */

export const WEBHOOK_EVENT_TYPES = ['job.completed', 'job.failed', 'job.cancelled'] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The webhook event a job in a terminal status produces. */
export function webhookEventTypeForStatus(status: string): WebhookEventType | null {
  switch (status) {
    case 'completed':
      return 'job.completed';
    case 'failed':
      return 'job.failed';
    case 'cancelled':
      return 'job.cancelled';
    default:
      return null;
  }
}

/** Delivery state of a webhook event (`webhook_events.status`). */
export type WebhookEventStatus = 'pending' | 'delivered' | 'failed';

/** How one delivery attempt ended. */
export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'gone';
