/** Webhook event types and the types shared by the API, the workflows and the activities. */

export const WEBHOOK_EVENT_TYPES = [
  'job.processing',
  'job.progress',
  'job.attempt',
  'job.completed',
  'job.failed',
  'job.cancelled',
  'job.outputs_deleted',
  'job.delivered',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The bodies a job's webhooks can be sent as besides genmedia's envelope: `replicate`, the job as a Replicate prediction. */
export const WEBHOOK_FORMATS = ['replicate'] as const;

export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];
/** Events of a batch, sent to the batch's own webhookUrl by the same delivery as a job's (docs/batches.md). */
export const BATCH_WEBHOOK_EVENT_TYPES = ['batch.progress', 'batch.completed'] as const;

/** Every event a webhook delivery carries: a job's, or a batch's (whose id stands where a job's would). */
export type DeliveredWebhookEventType = WebhookEventType | (typeof BATCH_WEBHOOK_EVENT_TYPES)[number];

/** What a job with a webhook URL is sent when `webhookEvents` is not given at submit. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEventType[] = ['job.completed', 'job.failed', 'job.cancelled'];

/** Events that happen while a job runs; the job's event relay sends them (see workflows/jobEventWebhooks.ts). */
export const RUNNING_WEBHOOK_EVENTS: readonly WebhookEventType[] = ['job.processing', 'job.progress', 'job.attempt'];

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

/** Default minimum time between two `job.progress` webhooks of one job. */
export const DEFAULT_PROGRESS_INTERVAL_SECONDS = 5;

/** One read of the relay: the job's events after a sequence (type and sequence only). */
export interface JobEventBatch {
  events: { sequence: number; type: string }[];
  /** The job has reached its terminal event: nothing follows the returned ones. */
  finished: boolean;
}
