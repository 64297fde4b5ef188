import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';

const PRODUCTION_SECRETS = { JOBS_CURSOR_SECRET: 'a-long-random-cursor-secret-0123456789', DESTINATION_SECRET_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=', MINIO_SECRET_KEY: 'a-long-random-minio-password', PROVENANCE_ENABLED: 'false' };

describe('FAILURE_INJECTION', () => {
  it('is on in development and test, off in production, and can be set either way', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).providers.failureInjection).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).providers.failureInjection).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production', ...PRODUCTION_SECRETS }).providers.failureInjection).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', ...PRODUCTION_SECRETS, FAILURE_INJECTION: '1' }).providers.failureInjection).toBe(true);
    expect(loadConfig({ NODE_ENV: 'development', FAILURE_INJECTION: '0' }).providers.failureInjection).toBe(false);
  });
});
