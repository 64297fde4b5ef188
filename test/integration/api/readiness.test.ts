import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually';
import { freeLoopbackPort } from '../../../src/lib/freePort';
import type { RunningApi } from '../../../src/api/server';
import { request, startTestApi } from '../../support/api';
import { startTestStack, type TestStack } from '../../support/stack';

describe('GET /healthz and /readyz', () => {
  let api: RunningApi | undefined;
  let stack: TestStack | undefined;
  afterEach(async () => {
    await api?.stop();
    await stack?.stop();
    api = undefined;
    stack = undefined;
  });

  it('is ready when PostgreSQL, Temporal and MinIO answer and a workflow worker polls the jobs queue', async () => {
    stack = await startTestStack();
    api = stack.api;
    expect((await request(`${api.url}/healthz`)).body).toEqual({ status: 'ok' });
    const res = await request(`${api.url}/readyz`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ready');
    expect(Object.keys(res.body.checks).sort()).toEqual(['minio', 'postgres', 'temporal', 'workers']);
    expect(res.body.unavailable).toEqual([]);
  });

  it('is not ready while no worker would start a job, and ready again once one polls', async () => {
    stack = await startTestStack({ workflowWorker: false });
    api = stack.api;
    const waiting = await request(`${api.url}/readyz`);
    expect(waiting.status).toBe(503);
    expect(waiting.body.unavailable).toEqual(['workers']);
    expect(waiting.body.checks.workers.error).toMatch(/no workflow worker polls the test-\S+-jobs task queue/);

    const worker = await stack.workers.startWorkflowWorker();
    await eventually(async () => ((await request(`${api!.url}/readyz`)).status === 200 ? true : undefined), 30_000, 200, 'ready with a worker');
    // A worker that stops says so to Temporal as it goes: the API is not ready the moment it has gone.
    await worker.stop();
    await eventually(async () => ((await request(`${api!.url}/readyz`)).status === 503 ? true : undefined), 5_000, 100, 'not ready without it');
    expect((await request(`${api.url}/readyz`)).body.unavailable).toEqual(['workers']);
  });

  it('tells a caller from elsewhere only up or down', async () => {
    stack = await startTestStack();
    api = stack.api;
    // As through a reverse proxy on this host: the client's own address is in X-Forwarded-For.
    const res = await request(`${api.url}/readyz`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });

  it('reports a stopped MinIO by name with 503, while staying alive', async () => {
    api = await startTestApi({ MINIO_ENDPOINT: `http://127.0.0.1:${await freeLoopbackPort()}` });
    const res = await request(`${api.url}/readyz`);
    expect(res.status).toBe(503);
    // No workflow worker runs for this API either.
    expect(res.body.unavailable).toEqual(['minio', 'workers']);
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
    expect(res.body.unavailable).toEqual(['temporal', 'workers']);
    expect(res.body.checks.temporal.error).toMatch(/\S/);
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
    expect(res.body.unavailable).toEqual(['postgres', 'workers']);
  });
});
