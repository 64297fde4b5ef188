import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type TuningOverride } from '../../../src/config';

function problemOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`${JSON.stringify(env)} was accepted`);
}

describe('a wrong value in the environment', () => {
  it.each([
    [{ PORT: 'eighty' }, /^Invalid environment: PORT: .*expected number/],
    [{ PORT: '70000' }, /^Invalid environment: PORT: .*65535/],
    [{ NODE_ENV: 'staging' }, /^Invalid environment: NODE_ENV: .*"production"/],
    [{ PROVENANCE_ENABLED: 'yes' }, /^Invalid environment: PROVENANCE_ENABLED: /],
    [{ PUBLIC_BASE_URL: 'api.example.com' }, /^Invalid environment: PUBLIC_BASE_URL: /],
    [{ TEMPORAL_UI_URL: 'ftp://ui.example.com' }, /^Invalid environment: TEMPORAL_UI_URL: /],
    [{ JOBS_CURSOR_SECRET: 'short' }, /^Invalid environment: JOBS_CURSOR_SECRET: .*16/],
    [{ PROVIDER_CONCURRENCY: 'local=1.5' }, /^Invalid environment: PROVIDER_CONCURRENCY: must look like "4", "4,providerId=2" or "providerId=4,other=\.\.\." \(got "local=1\.5"\)/],
    [{ PROVIDER_CONCURRENCY: '4,8' }, /^Invalid environment: PROVIDER_CONCURRENCY: .*\(got "8"\)/],
    [{ PROVIDER_CONCURRENCY: '0' }, /^Invalid environment: PROVIDER_CONCURRENCY: .*\(got "0"\)/],
    [{ PROVIDER_CONCURRENCY: '=2' }, /^Invalid environment: PROVIDER_CONCURRENCY: .*\(got "=2"\)/],
    [{ PROVIDER_RATE_LIMITS: 'acme=0' }, /^Invalid environment: PROVIDER_RATE_LIMITS: must look like "providerId=0\.5,other=\.\.\." \(got "acme=0"\)/],
    [{ DESTINATION_SECRET_KEY: 'too-short' }, /^Invalid environment: DESTINATION_SECRET_KEY: must be 32 bytes/],
    [{ COG_ALLOWED_NETWORKS: '10.0.0.0/99' }, /^Invalid environment: COG_ALLOWED_NETWORKS: /],
  ])('%o stops the start, naming the variable', (env, problem) => {
    expect(problemOf(env)).toMatch(problem);
  });

  it.each([
    [{ dialects: { replicateWaitSeconds: 60 } }, /^Invalid tuning \(test configuration\): dialects\.replicateWaitSeconds: .*59/],
    [{ webhooks: { retryScheduleSeconds: [0, 5, -1] } }, /^Invalid tuning \(test configuration\): webhooks\.retryScheduleSeconds\.2: .*>=0/],
  ] satisfies [TuningOverride, RegExp][])('a tuning of %o stops the start, naming the value', (tuning, problem) => {
    expect(() => loadConfig({}, { tuning })).toThrow(ConfigError);
    expect(() => loadConfig({}, { tuning })).toThrow(problem);
  });

  it('never repeats the value of a secret', () => {
    const secrets = { JOBS_CURSOR_SECRET: 'cursor-secret', MINIO_SECRET_KEY: 'minio12', METRICS_BEARER_TOKEN: 'bearer-token', DESTINATION_SECRET_KEY: 'destination-key' };
    const problem = problemOf(secrets);
    for (const [variable, value] of Object.entries(secrets)) {
      expect(problem).toContain(`${variable}: `);
      expect(problem).not.toContain(value);
    }
  });

  it('is reported with the other wrong values of the same environment', () => {
    const problem = problemOf({ PORT: 'eighty', LOG_LEVEL: 'loud' });
    expect(problem).toMatch(/PORT: /);
    expect(problem).toMatch(/LOG_LEVEL: /);
  });
});
