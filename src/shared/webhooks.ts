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

// ───────────── delivery workflow ─────────────

/** Input of `webhookDeliveryWorkflow`: one event of one job. */
export interface WebhookDeliveryInput {
  jobId: string;
  eventType: WebhookEventType;
  /** A replay asked for through the API: same event and webhook-id, attempts flagged as redeliveries. */
  redelivery?: boolean;
}

/** What the prepare activity settles before the first attempt; recorded in history, so replay-safe. */
export interface PreparedWebhookEvent {
  /** The `webhook-id`. */
  eventId: string;
  /** Number of this run's first attempt (continues after earlier runs' attempts). */
  firstAttempt: number;
  retryScheduleSeconds: number[];
  attemptTimeoutMs: number;
}

export interface WebhookAttemptInput {
  eventId: string;
  attempt: number;
  redelivery: boolean;
  /** No attempt follows this one: a failure marks the event failed. */
  final: boolean;
}

export interface WebhookAttemptSummary {
  outcome: WebhookAttemptOutcome;
  statusCode?: number;
  error?: string;
  durationMs: number;
  retryAfterSeconds?: number;
}

export interface WebhookDeliveryResult {
  eventId: string | null;
  status: 'delivered' | 'failed' | 'skipped';
  attempts: number;
}

/** Workflow id of an event's delivery, started by the job workflow. */
export function webhookWorkflowId(jobId: string, eventType: WebhookEventType): string {
  return `webhook:${jobId}:${eventType}`;
}

/** Workflow id of a redelivery; at most one runs at a time per event. */
export function webhookRedeliveryWorkflowId(jobId: string, eventType: WebhookEventType): string {
  return `webhook:${jobId}:${eventType}:redelivery`;
}
