import { Router } from 'express';
import { z } from 'zod';
import { whyJobsWouldWait } from '../../temporal/workerLiveness';
import type { ApiDeps } from '../deps';
import { errorResponse, PUBLIC, registry } from '../openapi';

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
  checks: z
    .record(z.string(), z.object({ ok: z.boolean(), error: z.string().optional(), latencyMs: z.number() }))
    .optional()
    .openapi({ description: 'Only for callers on this host (loopback): what each dependency answered' }),
  unavailable: z.array(z.string()).optional().openapi({ description: 'Only for callers on this host: the dependencies down' }),
});

/** Operators and probes on the host itself see which dependency is down; anyone else learns only up or down. */
function isLocalCaller(ip: string | undefined): boolean {
  return ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1';
}

registry.registerPath({
  method: 'get',
  path: '/healthz',
  operationId: 'checkLiveness',
  summary: 'Liveness: the process is up',
  tags: ['Operations'],
  security: PUBLIC,
  responses: {
    200: { description: 'Alive', content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } } },
    400: errorResponse(400, 'Malformed request (a NUL character or bad percent-encoding in the URL)'),
    500: errorResponse(500),
  },
});
registry.registerPath({
  method: 'get',
  path: '/readyz',
  operationId: 'checkReadiness',
  summary: 'Readiness: PostgreSQL, Temporal and MinIO answer, and a workflow worker would start a job now',
  description:
    'Anonymous callers get `status` only; callers on the host itself (loopback) also get each check. The `workers` check ' +
    'fails while no worker of the build new jobs start on (the worker deployment\'s current build) polls the jobs task queue.',
  tags: ['Operations'],
  security: PUBLIC,
  responses: {
    200: { description: 'Ready', content: { 'application/json': { schema: Readiness } } },
    400: errorResponse(400, 'Malformed request (a NUL character or bad percent-encoding in the URL)'),
    500: errorResponse(500),
    503: { description: 'A dependency is down; `unavailable` names it', content: { 'application/json': { schema: Readiness } } },
  },
});

/** The workers check asks Temporal three questions; probes that come more often than this share one answer. */
const WORKERS_CHECK_REUSE_MS = 1000;

/** Fails while a job submitted now would wait for a workflow worker that is not there. */
function workersCheck(deps: ApiDeps): Check {
  let last: { at: number; answer: Promise<string | undefined> } | undefined;
  const { namespace, jobsTaskQueue, deployment } = deps.config.temporal;
  return async () => {
    if (!last || Date.now() - last.at >= WORKERS_CHECK_REUSE_MS) {
      last = { at: Date.now(), answer: whyJobsWouldWait(deps.temporal.workflowService, namespace, jobsTaskQueue, deployment?.deploymentName) };
    }
    const reason = await last.answer;
    if (reason) throw new Error(reason);
  };
}

export function healthRouter(deps: ApiDeps): Router {
  const checks: Record<string, Check> = {
    postgres: () => deps.prisma.$queryRaw`SELECT 1`,
    temporal: () => deps.temporal.connection.workflowService.getSystemInfo({}),
    minio: () => deps.storage.ping(),
    workers: workersCheck(deps),
  };
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (req, res) => {
    const names = Object.keys(checks);
    const results = await Promise.all(names.map((name) => runCheck(checks[name]!)));
    const report = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
    const unavailable = names.filter((_, i) => !results[i]!.ok);
    if (unavailable.length > 0) deps.logger.warn({ unavailable, checks: report }, 'not ready');
    const status = unavailable.length ? 'unavailable' : 'ready';
    res
      .status(unavailable.length ? 503 : 200)
      .set('Cache-Control', 'no-store')
      .json(isLocalCaller(req.ip) ? { status, checks: report, unavailable } : { status });
  });
  return router;
}
