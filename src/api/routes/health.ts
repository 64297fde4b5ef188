import { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { registry } from '../openapi';

const CHECK_TIMEOUT_MS = 2000;

type Check = () => Promise<unknown>;

async function runCheck(check: Check): Promise<{ ok: boolean; error?: string; latencyMs: number }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, latencyMs: Date.now() - started };
  } catch (err) {
    return { ok: false, error: (err as Error).message, latencyMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

const Readiness = z.object({
  status: z.enum(['ready', 'unavailable']),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), error: z.string().optional(), latencyMs: z.number() })),
  unavailable: z.array(z.string()),
});

registry.registerPath({
  method: 'get',
  path: '/healthz',
  summary: 'Liveness: the process is up',
  tags: ['operations'],
  responses: { 200: { description: 'Alive', content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } } } },
});
registry.registerPath({
  method: 'get',
  path: '/readyz',
  summary: 'Readiness: PostgreSQL, Temporal and MinIO all answer',
  tags: ['operations'],
  responses: {
    200: { description: 'Ready', content: { 'application/json': { schema: Readiness } } },
    503: { description: 'A dependency is down; `unavailable` names it', content: { 'application/json': { schema: Readiness } } },
  },
});

export function healthRouter(deps: ApiDeps): Router {
  const checks: Record<string, Check> = {
    postgres: () => deps.prisma.$queryRaw`SELECT 1`,
    temporal: () => deps.temporal.connection.workflowService.getSystemInfo({}),
    minio: () => deps.storage.ping(),
  };
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const names = Object.keys(checks);
    const results = await Promise.all(names.map((name) => runCheck(checks[name]!)));
    const report = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
    const unavailable = names.filter((_, i) => !results[i]!.ok);
    res
      .status(unavailable.length ? 503 : 200)
      .set('Cache-Control', 'no-store')
      .json({ status: unavailable.length ? 'unavailable' : 'ready', checks: report, unavailable });
  });
  return router;
}
