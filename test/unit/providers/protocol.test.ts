import { describe, expect, it } from 'vitest';
import { errorForFailedGeneration, errorForResponse, parseGeneration } from '../../../src/providers/http/protocol';

const none = new Headers();

describe('HTTP provider protocol', () => {
  it.each([
    [429, {}, 'PROVIDER_RATE_LIMITED', true],
    [500, {}, 'PROVIDER_UNAVAILABLE', true],
    [503, {}, 'PROVIDER_UNAVAILABLE', true],
    [504, {}, 'PROVIDER_TIMEOUT', true],
    [408, {}, 'PROVIDER_TIMEOUT', true],
    [409, {}, 'PROVIDER_UNAVAILABLE', true],
    [400, { error: { code: 'invalid_input' } }, 'PROVIDER_REJECTED_INPUT', false],
    [422, {}, 'PROVIDER_REJECTED_INPUT', false],
    [400, { error: { code: 'content_policy_violation' } }, 'CONTENT_POLICY_VIOLATION', false],
    [451, {}, 'CONTENT_POLICY_VIOLATION', false],
    [401, {}, 'PROVIDER_AUTH_FAILED', false],
    [403, {}, 'PROVIDER_AUTH_FAILED', false],
  ])('classifies %i %j as %s (retryable %s)', (status, body, code, retryable) => {
    expect(errorForResponse('submit', status, none, body)).toMatchObject({ code, retryable });
  });

  it('carries Retry-After on retryable answers only', () => {
    expect(errorForResponse('submit', 429, new Headers({ 'retry-after': '5' }), {}).retryAfterSeconds).toBe(5);
    expect(errorForResponse('submit', 400, new Headers({ 'retry-after': '5' }), {}).retryAfterSeconds).toBeUndefined();
  });

  it('makes a failed generation final, keeping content-policy and validation codes apart', () => {
    const failed = (code: string) => parseGeneration({ id: 'g', status: 'failed', error: { code, message: 'm' } });
    expect(errorForFailedGeneration(failed('nsfw_detected'))).toMatchObject({ code: 'CONTENT_POLICY_VIOLATION', retryable: false });
    expect(errorForFailedGeneration(failed('validation_error'))).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    expect(errorForFailedGeneration(failed('oom'))).toMatchObject({ code: 'PROVIDER_JOB_FAILED', retryable: false });
  });

  it('refuses a malformed generation retryably and clamps progress', () => {
    expect(() => parseGeneration({ id: 1, status: 'done' })).toThrowError(expect.objectContaining({ code: 'PROVIDER_UNAVAILABLE' }));
    expect(parseGeneration({ id: 'g', status: 'running', progress: 250 }).progress).toBe(100);
  });
});
