/**
 * A domain error becomes the API's answer in one place: the status of its code, its hint as headers (Retry-After in
 * whole seconds, at least 1; x-should-retry), its code, message, details and stack kept. An ApiError is answered as is.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/apiError';
import { DomainError, ERROR_STATUS } from '../../../src/shared/errors';

describe('ApiError.of', () => {
  it("answers a domain error with its code's status and its hint as headers", () => {
    const refused = new DomainError('RATE_LIMIT_EXCEEDED', 'Too many requests', { window: 'minute' }, { retryAfterSeconds: 2.2 });
    const answer = ApiError.of(refused);
    expect(answer).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429, message: 'Too many requests', details: { window: 'minute' } });
    expect(answer.headers).toEqual({ 'Retry-After': '3' });
    expect(answer.stack).toBe(refused.stack);
  });

  it('says Retry-After 1 for a hint under a second, x-should-retry for a request not worth repeating, nothing without a hint', () => {
    expect(ApiError.of(new DomainError('SERVICE_UNAVAILABLE', 'later', undefined, { retryAfterSeconds: 0 })).headers).toEqual({ 'Retry-After': '1' });
    expect(ApiError.of(new DomainError('WAIT_TIMEOUT', 'not yet', undefined, { retryable: false })).headers).toEqual({ 'x-should-retry': 'false' });
    const plain = ApiError.of(new DomainError('JOB_NOT_FOUND', 'no such job'));
    expect(plain.headers).toEqual({});
    expect(plain.status).toBe(ERROR_STATUS.JOB_NOT_FOUND);
  });

  it('answers an ApiError as it is', () => {
    const own = new ApiError('PAYLOAD_TOO_LARGE', 'too big', undefined, { Connection: 'close' });
    expect(ApiError.of(own)).toBe(own);
  });
});
