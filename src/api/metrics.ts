/**
 * What an API process counts, on a registry of its own: its requests, the submissions it answers, the uploads it
 * signs, the streams it holds open, and what it samples at a scrape (task-queue backlog, bytes in storage). Each
 * feature declares its own metrics; this assembles them.
 */
import { Gauge } from 'prom-client';
import { createSubmissionMetrics } from '../jobs/submissionMetrics';
import { createHttpMetrics } from '../observability/httpMetrics';
import { newRegistry } from '../observability/metrics';
import { createTaskQueueBacklogMetrics } from '../observability/taskQueueBacklog';
import { createStoredUsageMetrics } from '../outputs/storing/storedUsageGauges';
import { createUploadMetrics } from '../uploads/metrics';

export type ApiMetrics = ReturnType<typeof createApiMetrics>;

export function createApiMetrics(registry = newRegistry()) {
  return {
    registry,
    ...createHttpMetrics(registry),
    ...createSubmissionMetrics(registry),
    ...createUploadMetrics(registry),
    openStreams: new Gauge({
      name: 'genmedia_open_streams',
      help: 'Event streams (events) and Prefer: wait requests (wait) this API process holds open',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    ...createTaskQueueBacklogMetrics(registry),
    ...createStoredUsageMetrics(registry),
  };
}
