import { describe, expect, it } from 'vitest';
import { httpProviderConfigFromEnv, providerEnvPrefix } from '../../../src/providers/http/config';

describe('HTTP provider configuration', () => {
  it('derives the variable prefix from the provider id', () => {
    expect(providerEnvPrefix('acme-labs')).toBe('PROVIDER_HTTP_ACME_LABS_');
    expect(providerEnvPrefix('Acme.Labs v2')).toBe('PROVIDER_HTTP_ACME_LABS_V2_');
  });

  it('reads URL, key and overrides, with defaults for the rest', () => {
    const config = httpProviderConfigFromEnv('acme-labs', {
      PROVIDER_HTTP_ACME_LABS_URL: 'https://api.acme.test/',
      PROVIDER_HTTP_ACME_LABS_API_KEY: 'secret',
      PROVIDER_HTTP_ACME_LABS_POLL_INTERVAL_MS: '500',
    });
    expect(config).toEqual({
      providerId: 'acme-labs',
      baseUrl: 'https://api.acme.test',
      apiKey: 'secret',
      pollIntervalMs: 500,
      maxPollIntervalMs: 60_000,
      requestTimeoutMs: 30_000,
      generationTimeoutSeconds: 1_800,
      maxOutputBytes: 500 * 1024 * 1024,
    });
  });

  it('names the missing or invalid variable', () => {
    expect(() => httpProviderConfigFromEnv('acme', {})).toThrow(/PROVIDER_HTTP_ACME_URL/);
    expect(() =>
      httpProviderConfigFromEnv('acme', { PROVIDER_HTTP_ACME_URL: 'https://a.test', PROVIDER_HTTP_ACME_TIMEOUT_SECONDS: '-1' }),
    ).toThrow(/PROVIDER_HTTP_ACME_TIMEOUT_SECONDS/);
  });

});
