/**
 * Who reads the API's /metrics. Behind a reverse proxy every client arrives from the proxy's address, loopback or
 * private (compose: the Docker bridge), so in production the client port admits no scraper by address: the metrics
 * are on a port of their own (METRICS_PORT, what compose does) or behind the bearer token.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { startTestApi } from '../../support/api';
import { parsePrometheusText } from '../../support/prometheusText';

// A production process has no tuning file: the run's (GENMEDIA_TEST_TUNING) is for the test processes.
const PRODUCTION = {
  NODE_ENV: 'production',
  JOBS_CURSOR_SECRET: 'a-production-cursor-secret-for-tests',
  DESTINATION_SECRET_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
  PROVENANCE_ENABLED: 'false',
  GENMEDIA_TEST_TUNING: undefined,
};
const TOKEN = 'scrape-token-0123456789';

let api: RunningApi | undefined;
afterEach(async () => {
  await api?.stop();
  api = undefined;
});

describe('API /metrics', () => {
  it('answers no scraper by address on the client port in production, however private the caller', async () => {
    api = await startTestApi(PRODUCTION);
    // The test connects from loopback, as a reverse proxy on the same host (or the Docker bridge's gateway) does.
    const res = await fetch(`${api.url}/metrics`);
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain('genmedia_');
  });

  it('answers the bearer token on the client port in production', async () => {
    api = await startTestApi({ ...PRODUCTION, METRICS_BEARER_TOKEN: TOKEN });
    expect((await fetch(`${api.url}/metrics`)).status).toBe(403);
    const res = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('genmedia_http_request_duration_seconds');
  });

  it('moves to a port of its own with METRICS_PORT, with the sampled backlog, and leaves the client port', async () => {
    api = await startTestApi({ ...PRODUCTION, METRICS_PORT: '0' });
    expect(api.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect((await fetch(`${api.url}/metrics`)).status).toBe(404);
    await fetch(`${api.url}/healthz`);

    const res = await fetch(api.metricsUrl!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parsePrometheusText(await res.text());
    expect(samples.some((s) => s.name === 'genmedia_http_request_duration_seconds_count' && s.labels.route === '/healthz')).toBe(true);
    expect(samples.some((s) => s.name === 'genmedia_task_queue_backlog' && s.labels.task_queue === api!.deps.config.temporal.jobsTaskQueue)).toBe(true);
    expect((await fetch(api.metricsUrl!.replace('/metrics', '/v1/models'))).status).toBe(404);
  });

  it('answers loopback and private callers outside production (npm run dev, Prometheus next to it)', async () => {
    api = await startTestApi();
    expect((await fetch(`${api.url}/metrics`)).status).toBe(200);
  });
});
