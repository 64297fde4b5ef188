import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../src/shared/errors';
import { FAILURE_RULES, failureCodes, failureRule, mayFailOver, type FailureCode } from '../../../src/shared/failureCodes';
import { JOB_ERROR_MESSAGES } from '../../../src/shared/jobFailures';
import { ADMISSION_REJECTIONS, CANCEL_REJECTIONS, CLIENT_REFUSALS } from '../../../src/shared/jobRules';
import { PROVIDER_ERROR_CODES } from '../../../src/providers/types';

const codes = Object.keys(FAILURE_RULES) as FailureCode[];

describe('the failure code table', () => {
  it('answers each code the API documents with the documented status', () => {
    for (const code of codes) {
      if (code in ERROR_STATUS) expect([code, FAILURE_RULES[code].httpStatus]).toEqual([code, ERROR_STATUS[code as keyof typeof ERROR_STATUS]]);
    }
  });

  it('gives every provider error code a row, and every job failure a plain message', () => {
    for (const code of Object.keys(PROVIDER_ERROR_CODES)) expect(failureRule(code)).toBe(FAILURE_RULES[code as FailureCode]);
    for (const code of failureCodes('job')) expect(JOB_ERROR_MESSAGES[code]).toBe(FAILURE_RULES[code].message);
    expect(failureRule('SOMETHING_NEW')).toBe(FAILURE_RULES.INTERNAL_ERROR);
  });

  it('derives the allow-lists of admission, cancel and the API from it', () => {
    expect([...ADMISSION_REJECTIONS].sort()).toEqual(['ACCOUNT_NOT_FOUND', 'ADMISSION_VOIDED', 'BUDGET_EXCEEDED', 'CONCURRENT_JOBS_EXCEEDED', 'INSUFFICIENT_BALANCE']);
    expect([...CLIENT_REFUSALS].sort()).toEqual(['BUDGET_EXCEEDED', 'CONCURRENT_JOBS_EXCEEDED', 'INSUFFICIENT_BALANCE']);
    expect([...CANCEL_REJECTIONS].sort()).toEqual(['JOB_CANNOT_BE_CANCELLED', 'JOB_NOT_FOUND']);
  });

  it('never fails over what the client caused, and fails over a content-policy refusal only where the model says so', () => {
    for (const code of codes.filter((c) => FAILURE_RULES[c].clientCaused && c !== 'CONTENT_POLICY_VIOLATION')) expect(mayFailOver(code)).toBe(false);
    expect(mayFailOver('CONTENT_POLICY_VIOLATION')).toBe(false);
    expect(mayFailOver('CONTENT_POLICY_VIOLATION', { failoverOnContentPolicy: true })).toBe(true);
    for (const code of ['PROVIDER_UNAVAILABLE', 'PROVIDER_RATE_LIMITED', 'PROVIDER_TIMEOUT', 'INJECTED_OUTAGE']) expect(mayFailOver(code)).toBe(true);
    expect(mayFailOver('INTERNAL_ERROR')).toBe(false);
  });

  it('says which failures leave nothing started upstream, so a later attempt may submit again', () => {
    const notStarted = codes.filter((c) => FAILURE_RULES[c].stage === 'job' && !FAILURE_RULES[c].mayHaveStarted);
    expect(notStarted).toEqual(expect.arrayContaining(['PROVIDER_RATE_LIMITED', 'PROVIDER_REJECTED_INPUT', 'CONTENT_POLICY_VIOLATION', 'PROVIDER_AUTH_FAILED', 'PROVIDER_UNAVAILABLE', 'INPUT_FETCH_FAILED']));
    expect(notStarted).not.toContain('PROVIDER_TIMEOUT');
  });
});
