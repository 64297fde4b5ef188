/**
 * Every code a job can fail or be refused with, and what each one means for the rest of the system: whether the
 * same route may be tried again, whether the upstream may have started (and may bill) a generation, whether the
 * client caused it, how the API answers it, and whether another route may take the job. The allow-lists of the
 * workflow, the activities and the API derive from this one table. Pure: safe to import from workflows.
 */

/** Where a code arises: refusing an admission, refusing a cancel, or ending a job that was admitted. */
export type FailureStage = 'admission' | 'cancel' | 'job';

/**
 * Whether another route may take the job after this failure: `yes`, `no`, or `model` (the model version's
 * `failoverOnContentPolicy` setting, off by default).
 */
export type Failover = 'yes' | 'no' | 'model';

export interface FailureRule {
  stage: FailureStage;
  /** The fixed, plain text a client sees with the code. */
  message: string;
  /** Trying the same route again may succeed: the activity is retried. */
  retryable: boolean;
  /** The upstream may have started, and may bill, a generation by the time this is known. */
  mayHaveStarted: boolean;
  /** The client's request caused it (its input, balance or limits): never our fault, never failed over. */
  clientCaused: boolean;
  /** The HTTP status where the API answers with the code itself (admission and cancel refusals). */
  httpStatus: number;
  failover: Failover;
}

const rule = (stage: FailureStage, httpStatus: number, message: string, flags: Partial<Omit<FailureRule, 'stage' | 'message' | 'httpStatus'>>): FailureRule => ({
  stage,
  message,
  httpStatus,
  retryable: false,
  mayHaveStarted: false,
  clientCaused: false,
  failover: 'no',
  ...flags,
});

export const FAILURE_RULES = {
  // ── admission refusals: no job, no charge ──
  INSUFFICIENT_BALANCE: rule('admission', 402, 'The account balance does not cover the job', { clientCaused: true }),
  BUDGET_EXCEEDED: rule('admission', 402, 'The job would pass a spend limit of the account or the key', { clientCaused: true }),
  CONCURRENT_JOBS_EXCEEDED: rule('admission', 429, "The account's plan limit of jobs at once is reached", { clientCaused: true }),
  /** The API gave up on an admission (ambiguous outcome) before the workflow ran it. */
  ADMISSION_VOIDED: rule('admission', 503, 'The job could not be queued; nothing was charged', {}),
  ACCOUNT_NOT_FOUND: rule('admission', 404, 'The account does not exist', {}),

  // ── cancel refusals ──
  JOB_NOT_FOUND: rule('cancel', 404, 'The job does not exist', { clientCaused: true }),
  JOB_CANNOT_BE_CANCELLED: rule('cancel', 409, 'Only pending jobs can be cancelled', { clientCaused: true }),

  // ── a job that was admitted and then failed: refunded in full ──
  PROVIDER_TIMEOUT: rule('job', 504, 'The provider did not finish in time', { retryable: true, mayHaveStarted: true, failover: 'yes' }),
  PROVIDER_RATE_LIMITED: rule('job', 503, 'The provider was over its rate limit and could not take the job', { retryable: true, failover: 'yes' }),
  PROVIDER_UNAVAILABLE: rule('job', 503, 'The provider could not be reached or failed while generating', { retryable: true, failover: 'yes' }),
  PROVIDER_REJECTED_INPUT: rule('job', 422, 'The provider refused the input', { clientCaused: true }),
  CONTENT_POLICY_VIOLATION: rule('job', 422, 'The provider refused the prompt or an input file on content-policy grounds', {
    clientCaused: true,
    failover: 'model',
  }),
  PROVIDER_AUTH_FAILED: rule('job', 502, 'The provider could not be used because of a configuration problem on our side', { failover: 'yes' }),
  PROVIDER_JOB_FAILED: rule('job', 502, 'The provider reported the generation as failed', { mayHaveStarted: true, failover: 'yes' }),
  PROVIDER_CANCELLED: rule('job', 502, 'The provider cancelled the generation', { mayHaveStarted: true, failover: 'yes' }),
  INPUT_FETCH_FAILED: rule('job', 422, 'An input file could not be fetched', { clientCaused: true }),
  BAD_OUTPUT: rule('job', 502, 'The provider produced an output that is missing, of an unsupported type, too large or does not decode', {
    mayHaveStarted: true,
  }),
  INJECTED_FAILURE: rule('job', 500, 'The job failed on purpose, as a [fail:...] token in its prompt asked', { retryable: true }),
  /** A route taken down on purpose by a `[fail:route:<provider>]` token (demos and tests of failover). */
  INJECTED_OUTAGE: rule('job', 503, 'The provider was taken down on purpose, as a [fail:route:...] token in its prompt asked', {
    failover: 'yes',
  }),
  UPSTREAM_OUTCOME_UNKNOWN: rule(
    'job',
    502,
    'The upstream may have started this generation but its answer was lost; the job was refunded instead of paying twice',
    { mayHaveStarted: true, failover: 'yes' },
  ),
  /** An attempt that finished after another attempt of the job (a hedge race): never the job's error. */
  OUTPUTS_TAKEN: rule('job', 500, 'Another attempt of this job finished first', { mayHaveStarted: true }),
  JOB_ABANDONED: rule('job', 500, 'The job stopped before it finished; its charge was refunded', {}),
  /** The job is not in the state the step needs (completing a cancelled job, failing a completed one). */
  JOB_STATE_CONFLICT: rule('job', 500, 'The job was not in the state its provider expected', {}),
  PROVIDER_ERROR: rule('job', 502, 'The provider failed', { mayHaveStarted: true }),
  INTERNAL_ERROR: rule('job', 500, 'The job failed because of an internal error', {}),
} as const satisfies Record<string, FailureRule>;

export type FailureCode = keyof typeof FAILURE_RULES;

export function isFailureCode(value: unknown): value is FailureCode {
  return typeof value === 'string' && Object.hasOwn(FAILURE_RULES, value);
}

/** The rule of a code; an unknown code is treated as INTERNAL_ERROR. */
export function failureRule(code: string): FailureRule {
  return isFailureCode(code) ? FAILURE_RULES[code] : FAILURE_RULES.INTERNAL_ERROR;
}

/** The codes of one stage, optionally only those matching `filter`. */
export function failureCodes(stage: FailureStage, filter: (rule: FailureRule) => boolean = () => true): FailureCode[] {
  return (Object.keys(FAILURE_RULES) as FailureCode[]).filter((code) => FAILURE_RULES[code].stage === stage && filter(FAILURE_RULES[code]));
}

/** Whether a job that failed with `code` on one route may be tried on the next. */
export function mayFailOver(code: string, settings: { failoverOnContentPolicy?: boolean } = {}): boolean {
  const { failover } = failureRule(code);
  return failover === 'yes' || (failover === 'model' && settings.failoverOnContentPolicy === true);
}
