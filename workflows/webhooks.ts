/**
 * Delivery of one webhook event (`webhook:<jobId>:<type>`), started by the job workflow when the job
 * reaches its final status and abandoned by it: the job never waits. One activity per attempt; the
 * waits between attempts are durable timers, so crashes, deploys and long receiver outages lose nothing.
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../src/contracts/workflows/webhookDelivery';
import { firstAttemptDelaySeconds, nextRetryDelaySeconds } from './webhookSchedule';

/** Database work is retried until it succeeds; HTTP failures are results, not activity failures. */
const DB_RETRY = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' } as const;

const { prepareWebhookEvent } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: DB_RETRY,
});

export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const prepared = await prepareWebhookEvent(input);
  if (!prepared) return { eventId: null, status: 'skipped', attempts: 0 };

  const { attemptWebhookDelivery } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: prepared.attemptTimeoutMs + 30_000,
    heartbeatTimeout: '5 seconds',
    retry: DB_RETRY,
  });
  const schedule = prepared.retryScheduleSeconds;
  const initialDelay = firstAttemptDelaySeconds(schedule);
  if (initialDelay > 0) await sleep(initialDelay * 1000);

  for (let n = 1; ; n++) {
    const attempt = prepared.firstAttempt + n - 1;
    const result = await attemptWebhookDelivery.executeWithOptions({ summary: `POST ${input.eventType} webhook, attempt ${attempt}` }, [
      { eventId: prepared.eventId, attempt, redelivery: input.redelivery === true, final: nextRetryDelaySeconds(n, schedule) === null },
    ]);
    if (result.outcome === 'delivered') return { eventId: prepared.eventId, status: 'delivered', attempts: n };
    if (result.outcome === 'gone') return { eventId: prepared.eventId, status: 'failed', attempts: n };
    const delay = nextRetryDelaySeconds(n, schedule, result.retryAfterSeconds);
    if (delay === null) return { eventId: prepared.eventId, status: 'failed', attempts: n };
    await sleep(delay * 1000);
  }
}
