/**
 * The rules PostgreSQL enforces on a job (admission, cancel, completion) and the one code each refusal carries, from
 * the job store through the activity and the workflow to the API; what each code means is in failureCodes.ts. Pure:
 * safe to import from workflows.
 */
import { ERROR_STATUS, type ErrorCode } from './errors';
import { failureCodes, type FailureCode } from './failureCodes';

/** The codes the job store refuses a step with (src/jobs/store.ts `JobRuleError`). */
export const JOB_RULE_CODES = [
  'INSUFFICIENT_BALANCE',
  'BUDGET_EXCEEDED',
  'CONCURRENT_JOBS_EXCEEDED',
  'ADMISSION_VOIDED',
  'ACCOUNT_NOT_FOUND',
  'JOB_NOT_FOUND',
  'JOB_CANNOT_BE_CANCELLED',
  'JOB_STATE_CONFLICT',
] as const satisfies readonly FailureCode[];

export type JobRuleCode = (typeof JOB_RULE_CODES)[number];

/** Refusals of an admission: final, retrying cannot help. */
export const ADMISSION_REJECTIONS: readonly string[] = failureCodes('admission');

/** The admission refusals a client caused and is told about (the others are settled as an unknown outcome). */
export const CLIENT_REFUSALS: readonly string[] = failureCodes('admission', (rule) => rule.clientCaused);

/** Refusals of a cancel: final. */
export const CANCEL_REJECTIONS: readonly string[] = failureCodes('cancel');

export function isJobRuleCode(value: unknown): value is JobRuleCode {
  return typeof value === 'string' && (JOB_RULE_CODES as readonly string[]).includes(value);
}

export function cannotCancelMessage(status: string): string {
  return `Job is ${status}; only pending jobs can be cancelled`;
}

/**
 * The API error a rule refusal is answered with: the same code where the API documents it, else INTERNAL_ERROR (a
 * refusal a client can never cause, such as a state conflict, is our fault).
 */
export function apiCodeForJobRule(code: JobRuleCode): ErrorCode {
  return code in ERROR_STATUS ? (code as ErrorCode) : 'INTERNAL_ERROR';
}
