import { describe, expect, it } from 'vitest';
import { createProviderRegistry, httpProviderConfigFromEnv, providerEnvPrefix, ProviderConfigError } from '../../../src/providers';

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

  it('registry builds one adapter per provider and fails fast on bad settings', () => {
    const registry = createProviderRegistry({ env: { PROVIDER_HTTP_REMOTE_URL: 'http://127.0.0.1:1' } });
    const local = registry.forProvider({ id: 'studio', adapter: 'local' });
    expect(registry.forProvider({ id: 'studio', adapter: 'local' })).toBe(local);
    expect(registry.forProvider({ id: 'remote', adapter: 'http' })).not.toBe(local);
    expect(() => registry.forProvider({ id: 'other', adapter: 'http' })).toThrow(ProviderConfigError);
    expect(() => registry.forProvider({ id: 'odd', adapter: 'grpc' })).toThrow(/unknown adapter/);
  });
});
