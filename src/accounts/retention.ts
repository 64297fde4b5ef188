/**
 * An account's output retention: its plan's default unless an operator set one for the account, and the retention a
 * job gets at submit (the account's, or a shorter one the client asked for).
 */
import type { Account } from '@prisma/client';
import { DomainError } from '../shared/errors';
import { MAX_OUTPUT_RETENTION_SECONDS } from '../shared/retention';
import { planPolicy } from './plans';

export type RetentionSource = 'plan' | 'account';

export interface AccountRetention {
  /** Seconds the outputs are kept after completion; null keeps them forever. */
  seconds: number | null;
  source: RetentionSource;
}

export type RetentionColumns = Pick<Account, 'plan' | 'outputRetentionSeconds' | 'outputRetentionOverridden'>;

export function accountRetention(account: RetentionColumns): AccountRetention {
  if (account.outputRetentionOverridden) return { seconds: account.outputRetentionSeconds, source: 'account' };
  return { seconds: planPolicy(account.plan).outputRetentionSeconds, source: 'plan' };
}

function describe(seconds: number | null): string {
  return seconds === null ? 'forever' : `${seconds} seconds`;
}

/**
 * The retention of a job the account submits: the account's, or `requested` when it lies between `minSeconds` and
 * the account's. Anything else is refused with VALIDATION_ERROR naming the allowed range.
 */
export function jobRetentionSeconds(account: RetentionColumns, requested: number | undefined, minSeconds: number): number | null {
  const { seconds: longest } = accountRetention(account);
  if (requested === undefined) return longest;
  const maximum = longest ?? MAX_OUTPUT_RETENTION_SECONDS;
  if (requested >= minSeconds && requested <= maximum) return requested;
  const message =
    `retentionSeconds must be between ${minSeconds} and ${maximum} ` +
    `(the account keeps outputs ${describe(longest)}; a submit may only shorten that, to ${minSeconds} seconds at least)`;
  throw new DomainError('VALIDATION_ERROR', `Invalid request: retentionSeconds: ${message}`, [
    { path: 'retentionSeconds', message, minimum: minSeconds, maximum, accountRetentionSeconds: longest },
  ]);
}
