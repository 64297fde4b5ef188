import { afterEach, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../../src/lib/freePort';
import type { RunningApi } from '../../../src/api/server';
import { request, startTestApi } from '../../support/api';

describe('GET /healthz and /readyz', () => {
  let api: RunningApi | undefined;
  afterEach(async () => {
    await api?.stop();
    api = undefined;
  });

  it('is ready when PostgreSQL, Temporal and MinIO answer', async () => {
    api = await startTestApi();
    expect((await request(`${api.url}/healthz`)).body).toEqual({ status: 'ok' });
    const res = await request(`${api.url}/readyz`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ready');
    expect(Object.keys(res.body.checks).sort()).toEqual(['minio', 'postgres', 'temporal']);
    expect(res.body.unavailable).toEqual([]);
  });

  it('tells a caller from elsewhere only up or down', async () => {
    api = await startTestApi();
    // As through a reverse proxy on this host: the client's own address is in X-Forwarded-For.
    const res = await request(`${api.url}/readyz`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });

  it('reports a stopped MinIO by name with 503, while staying alive', async () => {
    api = await startTestApi({ MINIO_ENDPOINT: `http://127.0.0.1:${await freeLoopbackPort()}` });
    const res = await request(`${api.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.body.unavailable).toEqual(['minio']);
    expect(res.body.checks.minio.error).toMatch(/\S/);
    const anonymous = await request(`${api.url}/readyz`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(anonymous.status).toBe(503);
    expect(anonymous.body).toEqual({ status: 'unavailable' });
    expect((await request(`${api.url}/healthz`)).status).toBe(200);
  });

  it('reports a stopped Temporal by name with 503', async () => {
    api = await startTestApi({ TEMPORAL_ADDRESS: `127.0.0.1:${await freeLoopbackPort()}` });
    const res = await request(`${api.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.body.unavailable).toEqual(['temporal']);
  });

  it('answers requests that need a stopped PostgreSQL with 503 SERVICE_UNAVAILABLE and Retry-After, not 500', async () => {
    const url = new URL(process.env.DATABASE_URL ?? 'postgresql://genmedia:genmedia@127.0.0.1:54329/genmedia');
    url.port = String(await freeLoopbackPort());
    api = await startTestApi({ DATABASE_URL: url.toString() });
    const res = await request(`${api.url}/v1/jobs`, { headers: { authorization: 'Bearer gm_anykeywilldo000000000000000000000000000' } });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('reports a stopped PostgreSQL by name with 503', async () => {
    const url = new URL(process.env.DATABASE_URL ?? 'postgresql://genmedia:genmedia@127.0.0.1:54329/genmedia');
    url.port = String(await freeLoopbackPort());
    api = await startTestApi({ DATABASE_URL: url.toString() });
    const res = await request(`${api.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.body.unavailable).toEqual(['postgres']);
  });
});
