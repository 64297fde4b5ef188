/**
 * Tuning values (src/lib/tuning.ts) are not read from the environment: they keep their features' defaults unless a
 * test gives others, in process or, for the processes it spawns, through the file GENMEDIA_TEST_TUNING names, which a
 * production process refuses.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, TUNING, tuningOf } from '../../../src/config';
import { WEBHOOKS_TUNING } from '../../../src/webhooks/tuning';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-tuning-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function tuningFile(content: string): string {
  const file = path.join(dir, `tuning-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, content);
  return file;
}

const PRODUCTION = {
  NODE_ENV: 'production',
  JOBS_CURSOR_SECRET: 'a-production-cursor-secret',
  MINIO_SECRET_KEY: 'a-production-minio-password',
  DESTINATION_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  PROVENANCE_ENABLED: 'false',
};

describe('tuning', () => {
  it("holds each feature's defaults where the feature reads them", () => {
    const config = loadConfig({});
    expect(config.webhooks.timeoutMs).toBe(15_000);
    expect(config.webhooks).toMatchObject(WEBHOOKS_TUNING.parse(undefined));
    expect(config.api.openStreams).toEqual({ perAccount: 100, perEventsUrl: 5, total: 5_000 });
    expect(tuningOf(config)).toEqual(TUNING.parse(undefined));
  });

  it('is not read from the environment', () => {
    expect(loadConfig({ WEBHOOK_TIMEOUT_MS: '500' }).webhooks.timeoutMs).toBe(15_000);
    expect(loadConfig({ PROVIDER_TIME_SCALE: '1' }).providers.timeScale).toBe(0.1);
    expect(loadConfig({ ...PRODUCTION, FAILURE_INJECTION: '1' }).providers.failureInjection).toBe(false);
  });

  it('takes a test override, branch by branch, the rest at their defaults', () => {
    const config = loadConfig({}, { tuning: { webhooks: { timeoutMs: 500 }, api: { openStreams: { total: 3 } } } });
    expect(config.webhooks.timeoutMs).toBe(500);
    expect(config.webhooks.progressIntervalSeconds).toBe(5);
    expect(config.api.openStreams).toEqual({ perAccount: 100, perEventsUrl: 5, total: 3 });
  });

  it('refuses a value no feature declares, naming it', () => {
    const tuning = { webhooks: { timeoutMilliseconds: 500 } } as never;
    expect(() => loadConfig({}, { tuning })).toThrow(/webhooks: .*timeoutMilliseconds/);
  });

  it("reads the file GENMEDIA_TEST_TUNING names, the in-process override on top", () => {
    const file = tuningFile(JSON.stringify({ webhooks: { timeoutMs: 700, retryScheduleSeconds: [0, 1] } }));
    const config = loadConfig({ GENMEDIA_TEST_TUNING: file }, { tuning: { webhooks: { timeoutMs: 900 } } });
    expect(config.webhooks.retryScheduleSeconds).toEqual([0, 1]);
    expect(config.webhooks.timeoutMs).toBe(900);
  });

  it('gives a spawned process the tuning of the configuration it was written from', () => {
    const config = loadConfig({}, { tuning: { batches: { roundIntervalMs: 100 }, upstreams: { pollIntervalMs: 200 } } });
    const file = tuningFile(JSON.stringify(tuningOf(config)));
    expect(tuningOf(loadConfig({ GENMEDIA_TEST_TUNING: file }))).toEqual(tuningOf(config));
  });

  it('stops the start on a file that cannot be read or is no tuning, naming the variable', () => {
    expect(() => loadConfig({ GENMEDIA_TEST_TUNING: path.join(dir, 'missing.json') })).toThrow(/cannot read .*missing\.json \(ENOENT\)/);
    expect(() => loadConfig({ GENMEDIA_TEST_TUNING: tuningFile('{ not json') })).toThrow(/is not JSON/);
    const negative = tuningFile(JSON.stringify({ batches: { roundIntervalMs: -1 } }));
    expect(() => loadConfig({ GENMEDIA_TEST_TUNING: negative })).toThrow(/^Invalid tuning \(GENMEDIA_TEST_TUNING=.*\): batches\.roundIntervalMs: /);
  });

  it('is refused from a file in production', () => {
    expect(loadConfig(PRODUCTION).webhooks.timeoutMs).toBe(15_000);
    const file = tuningFile(JSON.stringify({ webhooks: { timeoutMs: 700 } }));
    expect(() => loadConfig({ ...PRODUCTION, GENMEDIA_TEST_TUNING: file })).toThrow(ConfigError);
    expect(() => loadConfig({ ...PRODUCTION, GENMEDIA_TEST_TUNING: file })).toThrow(/Refusing to start in production: unset GENMEDIA_TEST_TUNING/);
  });
});
