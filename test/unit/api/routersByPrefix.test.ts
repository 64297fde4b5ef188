import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { Router, type ErrorRequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routersByPrefix } from '../../../src/api/middleware/pathPrefix';

/** Routers as the API lays them out, each logging that it was entered, behind routersByPrefix. */
function app(entered: string[]) {
  const router = (name: string, paths: string[], next = false) => {
    const r = Router();
    r.use((_req, _res, proceed) => {
      entered.push(name);
      proceed();
    });
    for (const path of paths) {
      r.get(path, (req, res, proceed) => {
        if (next) return proceed();
        res.json({ router: name, route: `${req.baseUrl}${(req.route as { path: string }).path}`, params: req.params });
      });
    }
    r.get('/boom/:at', () => {
      throw new Error(`boom in ${name}`);
    });
    return r;
  };
  const a = express();
  a.use(
    routersByPrefix([
      [['/healthz', '/readyz'], router('health', ['/healthz', '/readyz'])],
      [['/v1/models', '/v1/providers'], router('models', ['/v1/models', '/v1/models/*modelId', '/v1/providers'])],
      [['/v1/jobs'], router('events', ['/v1/jobs/events'])],
      [['/v1/jobs'], router('jobs', ['/v1/jobs', '/v1/jobs/:jobId'])],
      [['/v1/jobs'], router('webhooks', ['/v1/jobs/:jobId/webhooks'])],
      [['/boom'], router('boom', [])],
      [['/passes'], router('passes', ['/passes'], true)],
    ]),
  );
  a.use((_req, res) => {
    res.status(404).json({ notFound: true });
  });
  a.use(((err, _req, res, _next) => {
    res.status(500).json({ error: (err as Error).message });
  }) as ErrorRequestHandler);
  return a;
}

let server: http.Server;
let base: string;
const entered: string[] = [];

beforeAll(async () => {
  server = http.createServer(app(entered));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function get(path: string) {
  entered.length = 0;
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: await res.json(), entered: [...entered] };
}

describe('routersByPrefix', () => {
  it('enters only the routers under whose prefix the path lies, in order, and Express routes it as before', async () => {
    expect(await get('/v1/jobs')).toEqual({ status: 200, body: { router: 'jobs', route: '/v1/jobs', params: {} }, entered: ['events', 'jobs'] });
    expect(await get('/v1/jobs/events')).toMatchObject({ body: { router: 'events', route: '/v1/jobs/events' }, entered: ['events'] });
    expect(await get('/v1/jobs/job_1')).toMatchObject({ body: { router: 'jobs', params: { jobId: 'job_1' } }, entered: ['events', 'jobs'] });
    expect(await get('/v1/jobs/job_1/webhooks')).toMatchObject({ body: { router: 'webhooks' }, entered: ['events', 'jobs', 'webhooks'] });
    expect(await get('/v1/models/a/b/c')).toMatchObject({ body: { router: 'models', params: { modelId: ['a', 'b', 'c'] } }, entered: ['models'] });
    expect(await get('/v1/providers')).toMatchObject({ body: { router: 'models' }, entered: ['models'] });
    expect(await get('/readyz')).toMatchObject({ body: { router: 'health' }, entered: ['health'] });
  });

  it('matches as Express routes do: ignoring case, with a trailing slash, with a query', async () => {
    expect(await get('/V1/JOBS')).toMatchObject({ body: { router: 'jobs' }, entered: ['events', 'jobs'] });
    expect(await get('/v1/jobs/')).toMatchObject({ body: { router: 'jobs' } });
    expect(await get('/healthz?x=1')).toMatchObject({ body: { router: 'health' } });
  });

  it('passes a path under no prefix, or one a prefix only begins, straight to what follows the routers', async () => {
    expect(await get('/v1/jobsx')).toEqual({ status: 404, body: { notFound: true }, entered: [] });
    expect(await get('/v1/modelsx/a')).toEqual({ status: 404, body: { notFound: true }, entered: [] });
    expect(await get('/nothing')).toEqual({ status: 404, body: { notFound: true }, entered: [] });
    expect(await get('/v1/jobs/job_1/nothing')).toEqual({ status: 404, body: { notFound: true }, entered: ['events', 'jobs', 'webhooks'] });
    expect(await get('/passes')).toEqual({ status: 404, body: { notFound: true }, entered: ['passes'] });
  });

  it("hands a router's error to the app's error handlers", async () => {
    expect(await get('/boom/x')).toEqual({ status: 500, body: { error: 'boom in boom' }, entered: ['boom'] });
  });

  it('refuses a prefix that is not a path', () => {
    expect(() => routersByPrefix([[['v1/jobs'], Router()]])).toThrow(/prefixes/);
    expect(() => routersByPrefix([[['/v1/jobs/'], Router()]])).toThrow(/prefixes/);
    expect(() => routersByPrefix([[[], Router()]])).toThrow(/prefixes/);
  });
});
