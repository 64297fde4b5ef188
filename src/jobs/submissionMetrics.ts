/** What the API counts of submissions: each answered, each refused by its code, and the admission's round trip. */
import { Counter, Histogram, type Registry } from 'prom-client';
import { codeLabel, HTTP_BUCKETS } from '../observability/metrics';
import { DomainError } from '../shared/errors';
import { JOB_LABELS } from './jobMetrics';

export type SubmissionMetrics = ReturnType<typeof createSubmissionMetrics>;

export function createSubmissionMetrics(registry: Registry) {
  return {
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
  };
}

export type AdmissionOutcome = 'admitted' | 'refused' | 'unknown';

/** What one submission reports as it goes: the model once resolved, the admission round trip, the answer. */
export interface SubmissionTracker {
  resolved(model: string, provider: string): void;
  admission(outcome: AdmissionOutcome, seconds: number): void;
  answered(error?: unknown): void;
}

/**
 * Counts a submission once it is answered. Until its model resolves (refused before that, or an idempotent replay)
 * it is labelled `unresolved`: a slug the caller made up never becomes a label.
 */
export function trackSubmission(metrics: SubmissionMetrics): SubmissionTracker {
  let labels = { model: 'unresolved', provider: 'unresolved' };
  return {
    resolved(model, provider) {
      labels = { model, provider };
    },
    admission(outcome, seconds) {
      metrics.admissionDuration.observe({ ...labels, outcome }, seconds);
    },
    answered(error) {
      metrics.jobsSubmitted.inc(labels);
      if (error !== undefined) metrics.jobsRejected.inc({ ...labels, code: codeLabel(error instanceof DomainError ? error.code : 'INTERNAL_ERROR') });
    },
  };
}
