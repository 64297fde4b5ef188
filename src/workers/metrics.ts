/**
 * What a worker process counts, on a registry of its own: jobs, their money and their attempts on routes, webhook
 * attempts, output deliveries and deletions. Each feature declares its own metrics; this assembles them for the
 * activities and the provider workers, which count where PostgreSQL commits.
 */
import { createJobMetrics } from '../jobs/jobMetrics';
import { newRegistry } from '../observability/metrics';
import { createOutputMetrics } from '../outputs/outputMetrics';
import { createWebhookMetrics } from '../webhooks/metrics';

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

export function createWorkerMetrics(registry = newRegistry()) {
  return {
    registry,
    ...createJobMetrics(registry),
    ...createWebhookMetrics(registry),
    ...createOutputMetrics(registry),
  };
}
