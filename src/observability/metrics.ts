/**
 * The service's Prometheus metrics. Each process kind declares its own set on its own registry (tests run several
 * APIs and workers in one process). Label values come from bounded sets only: catalog slugs and provider ids, route
 * templates, stable error codes; never a job, account or request id.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Request latency buckets, seconds: from a cached read to a `Prefer: wait` that waits out its limit. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Job durations, seconds: from a sub-second image to an hour-long video. */
const JOB_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

const JOB_LABELS = ['model', 'provider'] as const;

/** A stable error code as a label value; anything else (a code an upstream made up) is counted as OTHER. */
export function codeLabel(code: string | undefined | null): string {
  return code && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : 'OTHER';
}

export function newRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'genmedia_' });
  dropGaugesNamedTotal(registry);
  return registry;
}

/**
 * prom-client's defaults include gauges named `*_total` (`nodejs_active_handles_total`, `..._requests_total`,
 * `..._resources_total`), a suffix Prometheus reserves for counters: `promtool check metrics` refuses every scrape that
 * has one. Each is the sum of the gauge of the same name without the suffix (by `type`), so nothing is lost.
 */
function dropGaugesNamedTotal(registry: Registry): void {
  for (const metric of registry.getMetricsAsArray()) {
    if (metric.name.endsWith('_total') && !(metric instanceof Counter)) registry.removeSingleMetric(metric.name);
  }
}

export type ApiMetrics = ReturnType<typeof createApiMetrics>;

/** What an API process counts: its requests, the submissions it answers and the uploads it signs. */
export function createApiMetrics(registry: Registry = newRegistry()) {
  return {
    registry,
    httpRequestDuration: new Histogram({
      name: 'genmedia_http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: HTTP_BUCKETS,
      registers: [registry],
    }),
    jobsSubmitted: new Counter({
      name: 'genmedia_jobs_submitted_total',
      help: 'Job submissions received (POST /v1/jobs/submit), by the model they name once it resolves',
      labelNames: JOB_LABELS,
      registers: [registry],
    }),
    jobsRejected: new Counter({
      name: 'genmedia_jobs_rejected_total',
      help: 'Job submissions answered with an error, by error code',
      labelNames: [...JOB_LABELS, 'code'] as const,
      registers: [registry],
    }),
    admissionDuration: new Histogram({
      name: 'genmedia_job_admission_duration_seconds',
      help: "Update-with-Start round trip of a submission: the workflow's admission (charge) as the API waits for it",
      labelNames: [...JOB_LABELS, 'outcome'] as const,
      buckets: HTTP_BUCKETS,
      registers: [registry],
    }),
    uploadPresigns: new Counter({
      name: 'genmedia_upload_presigns_total',
      help: 'Presigned uploads handed out, by content type',
      labelNames: ['content_type'] as const,
      registers: [registry],
    }),
    uploadDeclaredBytes: new Counter({
      name: 'genmedia_upload_declared_bytes_total',
      help: 'Bytes declared by presigned uploads (the size their PUT must send; presigns without a size add nothing)',
      labelNames: ['content_type'] as const,
      registers: [registry],
    }),
    openStreams: new Gauge({
      name: 'genmedia_open_streams',
      help: 'Event streams (events) and Prefer: wait requests (wait) this API process holds open',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    taskQueueBacklog: new Gauge({
      name: 'genmedia_task_queue_backlog',
      help: "Approximate tasks waiting in a task queue, from Temporal's task-queue description (sampled)",
      labelNames: ['task_queue', 'kind'] as const,
      registers: [registry],
    }),
    taskQueueBacklogAge: new Gauge({
      name: 'genmedia_task_queue_backlog_age_seconds',
      help: 'Age of the oldest task waiting in a task queue (sampled)',
      labelNames: ['task_queue', 'kind'] as const,
      registers: [registry],
    }),
    storedOutputBytes: new Gauge({
      name: 'genmedia_stored_output_bytes',
      help: 'Bytes of job outputs in our storage (completed jobs whose outputs are not deleted yet), all accounts (sampled)',
      registers: [registry],
    }),
    storedOutputObjects: new Gauge({
      name: 'genmedia_stored_output_objects',
      help: 'Job outputs in our storage, all accounts (sampled)',
      registers: [registry],
    }),
    storedUploadBytes: new Gauge({
      name: 'genmedia_stored_upload_bytes',
      help: 'Bytes of uploaded files in our storage (uploaded, not expired yet), all accounts (sampled)',
      registers: [registry],
    }),
    storedUploadObjects: new Gauge({
      name: 'genmedia_stored_upload_objects',
      help: 'Uploaded files in our storage, all accounts (sampled)',
      registers: [registry],
    }),
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/**
 * What a worker process counts. Job outcomes and money are counted where PostgreSQL commits them (the workflow
 * worker's activities), once per job: a retried step that finds its work done counts nothing.
 */
export function createWorkerMetrics(registry: Registry = newRegistry()) {
  return {
    registry,
    jobsAdmitted: new Counter({
      name: 'genmedia_jobs_admitted_total',
      help: 'Jobs admitted (charged and pending)',
      labelNames: JOB_LABELS,
      registers: [registry],
    }),
    jobsCompleted: new Counter({ name: 'genmedia_jobs_completed_total', help: 'Jobs completed', labelNames: JOB_LABELS, registers: [registry] }),
    jobsFailed: new Counter({
      name: 'genmedia_jobs_failed_total',
      help: 'Jobs failed (and refunded), by error code',
      labelNames: [...JOB_LABELS, 'code'] as const,
      registers: [registry],
    }),
    jobsCancelled: new Counter({
      name: 'genmedia_jobs_cancelled_total',
      help: 'Jobs cancelled while pending (and refunded)',
      labelNames: JOB_LABELS,
      registers: [registry],
    }),
    chargedMicroCents: new Counter({
      name: 'genmedia_charged_micro_cents_total',
      help: 'Micro-cents charged at admission (1 dollar = 1,000,000 micro-cents)',
      labelNames: JOB_LABELS,
      registers: [registry],
    }),
    refundedMicroCents: new Counter({
      name: 'genmedia_refunded_micro_cents_total',
      help: 'Micro-cents refunded, by reason (failed, cancelled)',
      labelNames: [...JOB_LABELS, 'reason'] as const,
      registers: [registry],
    }),
    jobQueued: new Histogram({
      name: 'genmedia_job_queued_seconds',
      help: 'Time from admission to the provider starting the job (pending → processing)',
      labelNames: JOB_LABELS,
      buckets: JOB_BUCKETS,
      registers: [registry],
    }),
    jobProcessing: new Histogram({
      name: 'genmedia_job_processing_seconds',
      help: 'Time the provider worked on a finished job (processing → completed or failed)',
      labelNames: [...JOB_LABELS, 'status'] as const,
      buckets: JOB_BUCKETS,
      registers: [registry],
    }),
    jobEndToEnd: new Histogram({
      name: 'genmedia_job_end_to_end_seconds',
      help: 'Time from admission to the final status, by final status',
      labelNames: [...JOB_LABELS, 'status'] as const,
      buckets: JOB_BUCKETS,
      registers: [registry],
    }),
    routeAttempts: new Counter({
      name: 'genmedia_route_attempts_total',
      help: 'Attempts of jobs on a route, by provider, outcome (succeeded, failed, cancelled) and role (first: the route a job started on; failover: one after a failure; hedge: one beside a slow first)',
      labelNames: ['provider', 'outcome', 'role'] as const,
      registers: [registry],
    }),
    routeTimeToStart: new Histogram({
      name: 'genmedia_route_time_to_start_seconds',
      help: 'Time from the start of an attempt to its provider reporting the generation running, by provider',
      labelNames: ['provider'] as const,
      buckets: JOB_BUCKETS,
      registers: [registry],
    }),
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
    outputDeliveries: new Counter({
      name: 'genmedia_output_deliveries_total',
      help: "Deliveries of jobs' outputs to their accounts' own buckets, settled, by outcome (delivered, failed: given up)",
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    outputBytesDeleted: new Counter({
      name: 'genmedia_output_bytes_deleted_total',
      help: 'Bytes of job outputs deleted from storage, by reason (retention, client, operator)',
      labelNames: ['reason'] as const,
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
