/**
 * A job's deadline as the submit fixes it (`deadline` or `cancelAfter`), and the submit's refusal of a job whose
 * estimate is already past it (`deadlinePolicy: reject_if_late`). Ending a job at its deadline is the job
 * workflow's (workflows/jobDeadline.ts).
 */
import { DomainError } from '../shared/errors';
import { MAX_DEADLINE_SECONDS, type DeadlinePolicy } from '../shared/deadlines';
import { kindOf } from '../providers/kinds';

/** The deadline a submit asks for, as an instant; undefined without one. */
export function jobDeadline(request: { deadline?: string; cancelAfter?: number }, nowMs: number): Date | undefined {
  if (request.cancelAfter !== undefined) return new Date(nowMs + request.cancelAfter * 1000);
  if (request.deadline === undefined) return undefined;
  const at = new Date(request.deadline);
  const problem =
    at.getTime() <= nowMs
      ? 'deadline is not in the future'
      : at.getTime() > nowMs + MAX_DEADLINE_SECONDS * 1000
        ? `deadline is more than ${MAX_DEADLINE_SECONDS} seconds (a week) away`
        : undefined;
  if (problem) throw new DomainError('VALIDATION_ERROR', problem, [{ path: 'deadline', message: problem }]);
  return at;
}

/** What the submit expects of the job: the median and 90th percentile of its completion, its start and place. */
export interface ExpectedTimes {
  estimatedCompletionTime: Date;
  estimatedCompletionTimeP90: Date;
  estimatedStartTime: Date | null;
  placeInLine: number | null;
}

/** Refuses the job when it asked to be refused rather than admitted late, and its 90th percentile is past its deadline. */
export function refuseIfLate(policy: DeadlinePolicy | undefined, deadline: Date | undefined, expected: ExpectedTimes): void {
  if (policy !== 'reject_if_late' || !deadline || expected.estimatedCompletionTimeP90 <= deadline) return;
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  throw new DomainError(
    'DEADLINE_UNREACHABLE',
    `The job would be done by ${expected.estimatedCompletionTimeP90.toISOString()} (90th percentile), after its deadline ${deadline.toISOString()}; nothing was charged`,
    {
      deadline: deadline.toISOString(),
      estimatedCompletionTime: iso(expected.estimatedCompletionTime),
      estimatedCompletionTimeP90: iso(expected.estimatedCompletionTimeP90),
      estimatedStartTime: iso(expected.estimatedStartTime),
      placeInLine: expected.placeInLine,
    },
    { retryable: false },
  );
}

/**
 * Whether a job stopped at its deadline while running is charged: only when a hosted upstream had already begun its
 * generation, which it bills us for. A built-in or self-hosted (Cog, HTTP) provider stops at no cost, and an upstream
 * that had only queued the generation cancels it for nothing: those are refunded in full.
 */
export function deadlineStopCharges(attempt: { providerAdapter: string; runningAt: Date | null }): boolean {
  return kindOf(attempt.providerAdapter)?.upstream === true && attempt.runningAt !== null;
}
