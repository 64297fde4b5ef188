import type { AttemptObserver } from '../jobs/attempts';
import type { JobLifecycleObserver } from '../jobs/transitionObserver';
import type { WebhookDeliveryDeps } from '../webhooks/deliverySteps';
import { codeLabel, type WorkerMetrics } from './metrics';

const seconds = (from: Date, to: Date) => Math.max(0, (to.getTime() - from.getTime()) / 1000);

/** Job counters, money and durations, from the transitions the job store commits. */
export function jobMetricsObserver(metrics: WorkerMetrics): JobLifecycleObserver {
  return {
    admitted(job) {
      const labels = { model: job.modelSlug, provider: job.providerId };
      metrics.jobsAdmitted.inc(labels);
      metrics.chargedMicroCents.inc(labels, Number(job.costMicroCents));
    },
    started(job) {
      metrics.jobQueued.observe({ model: job.modelSlug, provider: job.providerId }, seconds(job.createdAt, job.startedAt));
    },
    finished(job) {
      const labels = { model: job.modelSlug, provider: job.providerId };
      if (job.status === 'completed') metrics.jobsCompleted.inc(labels);
      if (job.status === 'failed') metrics.jobsFailed.inc({ ...labels, code: codeLabel(job.errorCode) });
      if (job.status === 'cancelled') metrics.jobsCancelled.inc(labels);
      if (job.refundedMicroCents > 0n) {
        metrics.refundedMicroCents.inc({ ...labels, reason: job.status === 'cancelled' ? 'cancelled' : 'failed' }, Number(job.refundedMicroCents));
      }
      if (job.startedAt) metrics.jobProcessing.observe({ ...labels, status: job.status }, seconds(job.startedAt, job.completedAt));
      metrics.jobEndToEnd.observe({ ...labels, status: job.status }, seconds(job.createdAt, job.completedAt));
    },
  };
}

/** Attempts per route: how each ended, whether it was a failover, and how long its provider took to start it. */
export function attemptMetricsObserver(metrics: WorkerMetrics): AttemptObserver {
  return ({ providerId, role, status, startedAt, runningAt }) => {
    metrics.routeAttempts.inc({ provider: providerId, outcome: status, role });
    if (runningAt) metrics.routeTimeToStart.observe({ provider: providerId }, seconds(startedAt, runningAt));
  };
}

/** Webhook attempts by outcome, and each event's settlement: delivered, gone (410) or exhausted (its last retry failed). */
export function webhookMetricsObserver(metrics: WorkerMetrics): NonNullable<WebhookDeliveryDeps['onAttempt']> {
  return ({ outcome, final, durationMs }) => {
    metrics.webhookAttempts.inc({ outcome });
    metrics.webhookAttemptDuration.observe(durationMs / 1000);
    if (outcome === 'delivered' || outcome === 'gone') metrics.webhookDeliveries.inc({ outcome });
    else if (final) metrics.webhookDeliveries.inc({ outcome: 'exhausted' });
  };
}
