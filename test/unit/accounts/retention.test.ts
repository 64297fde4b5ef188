/** An account's output retention (its plan's or its own) and the retention a submit may ask for. */
import { describe, expect, it } from 'vitest';
import { accountRetention, jobRetentionSeconds } from '../../../src/accounts/retention';
import { DomainError, ERROR_STATUS } from '../../../src/shared/errors';
import { MAX_OUTPUT_RETENTION_SECONDS } from '../../../src/shared/retention';

const onPlan = (plan: string) => ({ plan, outputRetentionSeconds: null, outputRetentionOverridden: false });
const overridden = (seconds: number | null) => ({ plan: 'standard', outputRetentionSeconds: seconds, outputRetentionOverridden: true });

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('accountRetention', () => {
  it("is the plan's default until an operator sets the account's, forever included", () => {
    expect(accountRetention(onPlan('free'))).toEqual({ seconds: 86_400, source: 'plan' });
    expect(accountRetention(onPlan('enterprise'))).toEqual({ seconds: null, source: 'plan' });
    expect(accountRetention(onPlan('gold-2019'))).toEqual({ seconds: 604_800, source: 'plan' });
    expect(accountRetention(overridden(7200))).toEqual({ seconds: 7200, source: 'account' });
    expect(accountRetention(overridden(null))).toEqual({ seconds: null, source: 'account' });
  });
});

describe('jobRetentionSeconds', () => {
  it("takes the account's when the submit asks for none, and a shorter one down to the minimum", () => {
    expect(jobRetentionSeconds(onPlan('standard'), undefined, 3600)).toBe(604_800);
    expect(jobRetentionSeconds(onPlan('enterprise'), undefined, 3600)).toBeNull();
    expect(jobRetentionSeconds(onPlan('standard'), 3600, 3600)).toBe(3600);
    expect(jobRetentionSeconds(onPlan('standard'), 604_800, 3600)).toBe(604_800);
    expect(jobRetentionSeconds(onPlan('enterprise'), MAX_OUTPUT_RETENTION_SECONDS, 3600)).toBe(MAX_OUTPUT_RETENTION_SECONDS);
    expect(jobRetentionSeconds(overridden(7200), 5, 1)).toBe(5);
  });

  it('refuses a longer retention than the account keeps, or one under the minimum, naming the range', () => {
    const longer = refusal(() => jobRetentionSeconds(onPlan('standard'), 604_801, 3600));
    expect(longer.code).toBe('VALIDATION_ERROR');
    expect(ERROR_STATUS[longer.code]).toBe(400);
    expect(longer.message).toContain('between 3600 and 604800');
    expect(longer.details).toEqual([expect.objectContaining({ path: 'retentionSeconds', minimum: 3600, maximum: 604_800, accountRetentionSeconds: 604_800 })]);
    const shorter = refusal(() => jobRetentionSeconds(onPlan('standard'), 3599, 3600));
    expect(shorter.message).toContain('between 3600 and 604800');
    const forever = refusal(() => jobRetentionSeconds(onPlan('enterprise'), 0, 60));
    expect(forever.details).toEqual([expect.objectContaining({ minimum: 60, maximum: MAX_OUTPUT_RETENTION_SECONDS, accountRetentionSeconds: null })]);
  });
});
