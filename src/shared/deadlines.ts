/** A job's deadline: the instant it must be done by, and what the submit does when its estimate is already later. */
export const DEADLINE_POLICIES = ['cancel', 'reject_if_late'] as const;
export type DeadlinePolicy = (typeof DEADLINE_POLICIES)[number];

/** The longest `cancelAfter`, and the furthest `deadline` from now: a week, as long as a job is ever waited for. */
export const MAX_DEADLINE_SECONDS = 7 * 24 * 3600;

/** Why a job ended at its deadline (its `error.code` on the cancelled job). */
export const DEADLINE_EXCEEDED = 'DEADLINE_EXCEEDED';

export const deadlineMessages = {
  notStarted: 'The job had not started by its deadline; it was cancelled and refunded in full',
  stoppedRefunded: 'The job was still running at its deadline; it was stopped at its provider and refunded in full',
  stoppedCharged: "The job was still running at its deadline; it was stopped at its provider, which had already run it, and is charged",
} as const;
