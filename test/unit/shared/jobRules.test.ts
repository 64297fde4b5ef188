import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../src/shared/errors';
import { ADMISSION_REJECTIONS, apiCodeForJobRule, CANCEL_REJECTIONS, isJobRuleCode, JOB_RULE_CODES } from '../../../src/shared/jobRules';

describe('job rule codes', () => {
  it('answer a client with the documented code and status where there is one, INTERNAL_ERROR otherwise', () => {
    expect(apiCodeForJobRule('INSUFFICIENT_BALANCE')).toBe('INSUFFICIENT_BALANCE');
    expect(ERROR_STATUS[apiCodeForJobRule('INSUFFICIENT_BALANCE')]).toBe(402);
    expect(ERROR_STATUS[apiCodeForJobRule('CONCURRENT_JOBS_EXCEEDED')]).toBe(429);
    expect(ERROR_STATUS[apiCodeForJobRule('JOB_CANNOT_BE_CANCELLED')]).toBe(409);
    expect(ERROR_STATUS[apiCodeForJobRule('JOB_NOT_FOUND')]).toBe(404);
    expect(apiCodeForJobRule('JOB_STATE_CONFLICT')).toBe('INTERNAL_ERROR');
    expect(apiCodeForJobRule('ADMISSION_VOIDED')).toBe('INTERNAL_ERROR');
    for (const code of JOB_RULE_CODES) expect(apiCodeForJobRule(code) in ERROR_STATUS).toBe(true);
  });

  it('list the final refusals of admission and cancel from the one union', () => {
    for (const code of [...ADMISSION_REJECTIONS, ...CANCEL_REJECTIONS]) expect(isJobRuleCode(code)).toBe(true);
    expect(isJobRuleCode('PROVIDER_TIMEOUT')).toBe(false);
    expect(isJobRuleCode(undefined)).toBe(false);
  });
});
