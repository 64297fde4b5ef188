/** What a job store tells its observer after each transition it commits (never for a retried step that finds it done). */
export interface JobTransitionFacts {
  modelSlug: string;
  providerId: string;
}

export interface JobFinishFacts extends JobTransitionFacts {
  status: 'completed' | 'failed' | 'cancelled';
  errorCode?: string;
  refundedMicroCents: bigint;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date;
  /** What the submit promised (median, 90th percentile); null for jobs admitted before promises were kept. */
  promisedCompletionTime?: Date | null;
  promisedCompletionTimeP90?: Date | null;
}

export interface JobLifecycleObserver {
  admitted(job: JobTransitionFacts & { costMicroCents: bigint }): void;
  /** pending → processing: the provider claimed the job. */
  started(job: JobTransitionFacts & { createdAt: Date; startedAt: Date }): void;
  finished(job: JobFinishFacts): void;
}

export const IGNORE_TRANSITIONS: JobLifecycleObserver = { admitted() {}, started() {}, finished() {} };
