import { describe, expect, it } from 'vitest';
import { openAiStatusAndType } from '../../../../src/api/dialects/openai/errors';
import { type ErrorCode } from '../../../../src/shared/errors';
import { ApiError } from '../../../../src/api/apiError';

const mapped = (code: ErrorCode) => openAiStatusAndType(new ApiError(code, 'x'));

describe("our errors in OpenAI's terms", () => {
  it('answers out of credits as OpenAI does: 429 insufficient_quota', () => {
    expect(mapped('INSUFFICIENT_BALANCE')).toEqual({ status: 429, type: 'insufficient_quota' });
    expect(mapped('BUDGET_EXCEEDED')).toEqual({ status: 429, type: 'insufficient_quota' });
  });

  it('keeps the status the SDK picks its error class by', () => {
    expect(mapped('MODEL_NOT_FOUND')).toEqual({ status: 404, type: 'invalid_request_error' });
    expect(mapped('INVALID_INPUT')).toEqual({ status: 400, type: 'invalid_request_error' });
    expect(mapped('UNAUTHORIZED')).toEqual({ status: 401, type: 'invalid_request_error' });
    expect(mapped('INSUFFICIENT_SCOPE')).toEqual({ status: 403, type: 'permission_error' });
    expect(mapped('CONCURRENT_JOBS_EXCEEDED')).toEqual({ status: 429, type: 'requests' });
    expect(mapped('RATE_LIMIT_EXCEEDED')).toEqual({ status: 429, type: 'requests' });
    expect(mapped('WAIT_TIMEOUT')).toEqual({ status: 504, type: 'server_error' });
    expect(mapped('JOB_FAILED')).toEqual({ status: 502, type: 'server_error' });
  });
});
