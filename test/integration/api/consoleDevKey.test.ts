/**
 * The console's sign-in form is prefilled with the dev key (npm run dev) only for a browser on this machine: the
 * connection's own address is loopback and no proxy forwarded it. API_HOST=0.0.0.0 lets other machines connect;
 * they never see the key, whatever X-Forwarded-For they send.
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiDeps, startApiServer, type RunningApi } from '../../../src/api/server';
import { loadConfig } from '../../../src/config';
import { testConfig } from '../../support/stack';

const DEV_KEY = 'gm_console_dev_key_for_this_test_0123456789';
const KEY_TAG = `<meta name="genmedia-dev-key" content="${DEV_KEY}" />`;

/** This machine's address on its network: connections to it do not come from loopback. */
const lanAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;

let api: RunningApi;
let port: string;

beforeAll(async () => {
  const config = testConfig({ API_HOST: '0.0.0.0' });
  api = await startApiServer(await createApiDeps(config, { console: { devApiKey: DEV_KEY } }), 0, '0.0.0.0');
  port = new URL(api.url).port;
});

afterAll(async () => {
  await api?.stop();
});

async function consolePage(host: string, headers: Record<string, string> = {}) {
  const res = await fetch(`http://${host}:${port}/console/`, { headers });
  expect(res.status).toBe(200);
  return { html: await res.text(), cacheControl: res.headers.get('cache-control') };
}

describe('the console page', () => {
  it('holds the dev key for a browser on this machine, and no cache keeps it', async () => {
    const page = await consolePage('127.0.0.1');
    expect(page.html).toContain(KEY_TAG);
    expect(page.cacheControl).toBe('no-store');
  });

  it.skipIf(!lanAddress)('holds no key for another machine, even one claiming to be loopback', async () => {
    const claims: Record<string, string>[] = [{}, { 'x-forwarded-for': '127.0.0.1' }];
    for (const headers of claims) {
      const page = await consolePage(lanAddress!, headers);
      expect(page.html).not.toContain(DEV_KEY);
      expect(page.html).not.toContain('genmedia-dev-key');
      expect(page.cacheControl).toBe('no-cache');
    }
  });

  it('holds no key for a request a proxy on this machine forwarded', async () => {
    const page = await consolePage('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' });
    expect(page.html).not.toContain(DEV_KEY);
  });

  it('holds no key from a production API, even one given the key', async () => {
    const production = loadConfig({
      ...process.env,
      NODE_ENV: 'production',
      JOBS_CURSOR_SECRET: 'a-production-cursor-secret-for-tests',
      DESTINATION_SECRET_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
      PROVENANCE_ENABLED: 'false',
      // A production process has no tuning file: the run's is for the test processes.
      GENMEDIA_TEST_TUNING: undefined,
    });
    const other = await startApiServer(await createApiDeps(production, { console: { devApiKey: DEV_KEY } }), 0, '127.0.0.1');
    try {
      const res = await fetch(`${other.url}/console/`);
      expect(res.status).toBe(200);
      expect(await res.text()).not.toContain('genmedia-dev-key');
    } finally {
      await other.stop();
    }
  });
});
