/**
 * Failure injection (`[fail:...]` prompt tokens, src/providers/local/failureInjection.ts) is a tuning value of the
 * built-in provider: on in development and tests unless a test turns it off, and never in production, whose processes
 * refuse a tuning file and drop it even from an in-process override.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';

const PRODUCTION_SECRETS = { JOBS_CURSOR_SECRET: 'a-long-random-cursor-secret-0123456789', DESTINATION_SECRET_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=', MINIO_SECRET_KEY: 'a-long-random-minio-password', PROVENANCE_ENABLED: 'false' };
const ON = { providers: { failureInjection: true } };
const OFF = { providers: { failureInjection: false } };

describe('failure injection', () => {
  it('is on in development and test, and a test can turn it off', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).providers.failureInjection).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).providers.failureInjection).toBe(true);
    expect(loadConfig({ NODE_ENV: 'development' }, { tuning: OFF }).providers.failureInjection).toBe(false);
  });

  it('is off in production, whatever the tuning says', () => {
    expect(loadConfig({ NODE_ENV: 'production', ...PRODUCTION_SECRETS }).providers.failureInjection).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', ...PRODUCTION_SECRETS }, { tuning: ON }).providers.failureInjection).toBe(false);
  });
});
