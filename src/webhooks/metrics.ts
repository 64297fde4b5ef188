/** What the workers count of webhooks: each HTTP attempt, its duration, and how each event settled. */
import { Counter, Histogram, type Registry } from 'prom-client';
import { HTTP_BUCKETS } from '../observability/metrics';
import type { WebhookDeliveryDeps } from './deliverySteps';

export type WebhookMetrics = ReturnType<typeof createWebhookMetrics>;

export function createWebhookMetrics(registry: Registry) {
  return {
    webhookAttempts: new Counter({
      name: 'genmedia_webhook_attempts_total',
      help: 'Webhook HTTP attempts, by outcome (delivered, retry: will be tried again or was the last, gone: 410)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: 'genmedia_webhook_deliveries_total',
      help: 'Webhook events settled, by outcome (delivered, gone, exhausted: every retry failed)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    webhookAttemptDuration: new Histogram({
      name: 'genmedia_webhook_attempt_duration_seconds',
      help: 'Duration of webhook HTTP attempts',
      buckets: HTTP_BUCKETS,
      registers: [registry],
    }),
  };
}

/** Webhook attempts by outcome, and each event's settlement: delivered, gone (410) or exhausted (its last retry failed). */
export function webhookMetricsObserver(metrics: WebhookMetrics): NonNullable<WebhookDeliveryDeps['onAttempt']> {
  return ({ outcome, final, durationMs }) => {
    metrics.webhookAttempts.inc({ outcome });
    metrics.webhookAttemptDuration.observe(durationMs / 1000);
    if (outcome === 'delivered' || outcome === 'gone') metrics.webhookDeliveries.inc({ outcome });
    else if (final) metrics.webhookDeliveries.inc({ outcome: 'exhausted' });
  };
}
