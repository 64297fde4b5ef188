/**
 * The two steps of a webhook delivery, as plain functions over injected dependencies:
 * `prepare` records the event (once per job and type), `attempt` makes one signed HTTP attempt and logs it.
 * The delivery workflow calls them through activities and owns the retry schedule.
 */
import type { Config } from '../config';
import { DEFAULT_WEBHOOK_EVENTS, type DeliveredWebhookEventType, type WebhookFormat, type PreparedWebhookEvent, type WebhookAttemptInput, type WebhookAttemptOutcome, type WebhookAttemptSummary } from '../shared/webhooks';
import { type WebhookDeliveryInput } from '../contracts/workflows/webhookDelivery';
import type { Resolver } from '../net/addressGuard';
import { postWebhookAttempt } from './httpAttempt';
import { buildWebhookPayload } from './payload';
import { activeSigningSecrets, webhookEventId, type AccountWebhookSecrets } from './signing';
import type { WebhookStore } from './store';

/** The facts about a job a delivery needs, and the job as `GET /v1/jobs/{jobId}` returns it. */
export interface WebhookJob {
  jobId: string;
  accountId: string;
  webhookUrl: string | null;
  /** The body the deliveries are sent as: null for the envelope, else the bare record (a Replicate prediction). */
  format: WebhookFormat | null;
  /** When the job reached its final status. */
  finishedAt: Date | null;
  record: Record<string, unknown>;
}

export interface WebhookDeliveryDeps {
  store: WebhookStore;
  loadJob(jobId: string): Promise<WebhookJob | null>;
  loadAccountSecrets(accountId: string): Promise<AccountWebhookSecrets | null>;
  config: Config['webhooks'];
  /** Extra trusted CAs for the receiver's TLS (tests); production relies on the system store. */
  ca?: string | Buffer;
  resolve?: Resolver;
  now?: () => Date;
  /** Hears of each HTTP attempt once it is recorded (metrics). */
  onAttempt?: (attempt: { outcome: WebhookAttemptOutcome; final: boolean; durationMs: number }) => void;
}

export interface WebhookDelivery {
  prepare(input: WebhookDeliveryInput): Promise<PreparedWebhookEvent | null>;
  attempt(input: WebhookAttemptInput): Promise<WebhookAttemptSummary>;
}

/** Events that report a final state: they happened when the job (or batch) finished, however late they are recorded. */
function isFinalEvent(eventType: DeliveredWebhookEventType): boolean {
  return (DEFAULT_WEBHOOK_EVENTS as readonly string[]).includes(eventType) || eventType === 'batch.completed';
}

export function createWebhookDelivery(deps: WebhookDeliveryDeps): WebhookDelivery {
  const now = deps.now ?? (() => new Date());
  const { config } = deps;

  return {
    /** Returns null when the job has no webhook URL (or no longer exists): nothing to deliver. */
    async prepare({ jobId, eventType, jobEventSequence, redelivery }) {
      const job = await deps.loadJob(jobId);
      if (!job?.webhookUrl) return null;
      const eventId = webhookEventId(jobId, jobEventSequence === undefined ? eventType : `${eventType}:${jobEventSequence}`);
      let event = await deps.store.findEvent(eventId);
      if (!event) {
        const { envelope } = buildWebhookPayload({
          type: eventType,
          // A running event happened when it was recorded; a terminal one when the job finished.
          occurredAt: (isFinalEvent(eventType) ? job.finishedAt : null) ?? now(),
          job: job.record,
          maxBytes: config.maxPayloadBytes,
        });
        event = await deps.store.ensureEvent({
          id: eventId,
          jobId,
          accountId: job.accountId,
          type: eventType,
          url: job.webhookUrl,
          payload: envelope as unknown as Record<string, unknown>,
        });
      }
      if (redelivery) await deps.store.setStatus(eventId, 'pending');
      return {
        eventId,
        firstAttempt: (await deps.store.lastAttemptNumber(eventId)) + 1,
        retryScheduleSeconds: [...config.retryScheduleSeconds],
        attemptTimeoutMs: config.timeoutMs,
      };
    },

    async attempt({ eventId, attempt, redelivery, final }) {
      const event = await deps.store.findEvent(eventId);
      if (!event) throw new Error(`webhook event ${eventId} does not exist`);
      const account = await deps.loadAccountSecrets(event.accountId);
      if (!account) throw new Error(`account ${event.accountId} of webhook event ${eventId} does not exist`);

      // Rebuilt from the job each time so output URLs are freshly signed; the event time never changes.
      const job = await deps.loadJob(event.jobId);
      const built = buildWebhookPayload({
        type: event.type,
        occurredAt: new Date(String(event.payload.timestamp)),
        job: job?.record ?? (event.payload.data as Record<string, unknown>),
        maxBytes: config.maxPayloadBytes,
      });
      // A compatible API's receivers expect its own object as the body: the record, shortened as the envelope's data.
      const body = job?.format ? JSON.stringify(built.envelope.data) : built.body;
      const secrets = activeSigningSecrets(account, now(), config.secretRotationWindowSeconds);

      const result = await postWebhookAttempt(
        { url: event.url, webhookId: eventId, body, secrets },
        {
          allowPrivate: config.allowPrivate,
          timeoutMs: config.timeoutMs,
          maxResponseBytes: config.maxResponseBytes,
          ca: deps.ca,
          resolve: deps.resolve,
          now,
        },
      );

      await deps.store.recordAttempt({
        eventId,
        jobId: event.jobId,
        attempt,
        attemptedAt: result.attemptedAt,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: result.durationMs,
        redelivery,
      });
      if (result.outcome === 'delivered') await deps.store.setStatus(eventId, 'delivered', result.attemptedAt);
      else if (result.outcome === 'gone' || final) await deps.store.setStatus(eventId, 'failed');
      deps.onAttempt?.({ outcome: result.outcome, final, durationMs: result.durationMs });

      const summary: WebhookAttemptSummary = { outcome: result.outcome, durationMs: result.durationMs };
      if (result.statusCode !== undefined) summary.statusCode = result.statusCode;
      if (result.error !== undefined) summary.error = result.error;
      if (result.retryAfterSeconds !== undefined) summary.retryAfterSeconds = result.retryAfterSeconds;
      return summary;
    },
  };
}
