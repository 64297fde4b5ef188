import { ApiError } from '../shared/errors';
import { codeLabel, type ApiMetrics } from './metrics';

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
export function trackSubmission(metrics: ApiMetrics): SubmissionTracker {
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
      if (error !== undefined) metrics.jobsRejected.inc({ ...labels, code: codeLabel(error instanceof ApiError ? error.code : 'INTERNAL_ERROR') });
    },
  };
}
