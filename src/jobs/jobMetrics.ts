/**
 * What the workers count of jobs: admissions, outcomes and money where PostgreSQL commits them (the job store's
 * transitions), once per job, so a retried step that finds its work done counts nothing; and each attempt on a route.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { codeLabel } from '../observability/metrics';
import type { AttemptObserver } from './attempts';
import type { JobFinishFacts, JobLifecycleObserver } from './transitionObserver';

/** Job durations, seconds: from a sub-second image to an hour-long video. */
const JOB_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** Actual over promised time to completion: 1 is a promise kept to the second, 2 a job that took twice as long. */
const ETA_ERROR_BUCKETS = [0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10];

/** The labels of a job's metrics: its model and the provider it ran on, both from bounded sets. */
export const JOB_LABELS = ['model', 'provider'] as const;

export type JobMetrics = ReturnType<typeof createJobMetrics>;

export function createJobMetrics(registry: Registry) {
  return {
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
    etaErrorRatio: new Histogram({
      name: 'genmedia_eta_error_ratio',
      help: "A completed job's time from admission to completion over the time its submit promised (the median estimate): below 1 early, above 1 late",
      labelNames: JOB_LABELS,
      buckets: ETA_ERROR_BUCKETS,
      registers: [registry],
    }),
    etaP90Kept: new Counter({
      name: 'genmedia_eta_p90_outcomes_total',
      help: 'Completed jobs by whether they were done by the 90th-percentile completion time their submit promised (kept: true or false)',
      labelNames: [...JOB_LABELS, 'kept'] as const,
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
  };
}

const seconds = (from: Date, to: Date) => Math.max(0, (to.getTime() - from.getTime()) / 1000);

/** Job counters, money and durations, from the transitions the job store commits. */
export function jobMetricsObserver(metrics: JobMetrics): JobLifecycleObserver {
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
      if (job.status === 'completed') observeEstimate(metrics, labels, job);
    },
  };
}

/** How the submit's promise held for a completed job: its error ratio, and whether its 90th percentile was kept. */
function observeEstimate(metrics: JobMetrics, labels: { model: string; provider: string }, job: JobFinishFacts): void {
  if (job.promisedCompletionTime) {
    const promised = seconds(job.createdAt, job.promisedCompletionTime);
    if (promised > 0) metrics.etaErrorRatio.observe(labels, seconds(job.createdAt, job.completedAt) / promised);
  }
  if (job.promisedCompletionTimeP90) {
    metrics.etaP90Kept.inc({ ...labels, kept: String(job.completedAt.getTime() <= job.promisedCompletionTimeP90.getTime()) });
  }
}

/** Attempts per route: how each ended, whether it was a failover, and how long its provider took to start it. */
export function attemptMetricsObserver(metrics: JobMetrics): AttemptObserver {
  return ({ providerId, role, status, startedAt, runningAt }) => {
    metrics.routeAttempts.inc({ provider: providerId, outcome: status, role });
    if (runningAt) metrics.routeTimeToStart.observe({ provider: providerId }, seconds(startedAt, runningAt));
  };
}
