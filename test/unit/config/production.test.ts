import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';

const SAFE = { JOBS_CURSOR_SECRET: 'a-long-random-cursor-secret-0123456789', DESTINATION_SECRET_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=', MINIO_SECRET_KEY: 'a-long-random-minio-password', PROVENANCE_ENABLED: 'false' };

describe('NODE_ENV=production', () => {
  it('refuses the built-in cursor secret and public MinIO secrets, naming what to set', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JOBS_CURSOR_SECRET.*MINIO_SECRET_KEY/);
    expect(() => loadConfig({ NODE_ENV: 'production', ...SAFE, MINIO_SECRET_KEY: 'minioadmin' })).toThrow(/MINIO_SECRET_KEY/);
    expect(() => loadConfig({ NODE_ENV: 'production', ...SAFE, MINIO_SECRET_KEY: 'genmedia-dev-secret' })).toThrow(/MINIO_SECRET_KEY/);
    expect(() => loadConfig({ NODE_ENV: 'production', ...SAFE, JOBS_CURSOR_SECRET: undefined })).toThrow(/JOBS_CURSOR_SECRET/);
    expect(() => loadConfig({ NODE_ENV: 'production', ...SAFE, DESTINATION_SECRET_KEY: undefined })).toThrow(/DESTINATION_SECRET_KEY/);
  });

  it('starts with its own secrets; development keeps its defaults', () => {
    expect(loadConfig({ NODE_ENV: 'production', ...SAFE }).jobs.cursorSecret).toBe(SAFE.JOBS_CURSOR_SECRET);
    expect(() => loadConfig({ NODE_ENV: 'development' })).not.toThrow();
  });

  it('takes only https: destination endpoints; development and test also plain http: for private ones', () => {
    expect(loadConfig({ NODE_ENV: 'production', ...SAFE }).destinations.allowPlainHttp).toBe(false);
    expect(loadConfig({ NODE_ENV: 'development' }).destinations.allowPlainHttp).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).destinations.allowPlainHttp).toBe(true);
  });

  it.each(['WEBHOOK_ALLOW_PRIVATE', 'INPUT_FETCH_ALLOW_PRIVATE'])('refuses %s, naming it', (variable) => {
    for (const on of ['1', 'true']) {
      expect(() => loadConfig({ NODE_ENV: 'production', ...SAFE, [variable]: on })).toThrow(
        new RegExp(`^Refusing to start in production: unset ${variable} \\(private addresses are for development and tests`),
      );
    }
    expect(loadConfig({ NODE_ENV: 'production', ...SAFE, [variable]: '0' }).env).toBe('production');
  });

  it('allows no private address to any surface', () => {
    const config = loadConfig({ NODE_ENV: 'production', ...SAFE });
    expect([config.webhooks.allowPrivate, config.providers.inputFetchAllowPrivate, config.destinations.allowPrivate]).toEqual([false, false, false]);
  });
});
