import { Router } from 'express';
import type { ApiDeps } from '../deps';
import { apiScrapeSamplers } from '../scrapeSamplers';
import { mayScrapeMetrics } from '../../observability/metricsAccess';

/**
 * GET /metrics on the client port: Prometheus exposition of this API process, with the task-queue backlog sampled
 * from Temporal and the bytes in storage from PostgreSQL. Absent when the metrics have a port of their own
 * (METRICS_PORT). In production a reverse proxy forwards clients to this port from a loopback or private address,
 * so there only the bearer token admits a scraper.
 */
export function metricsRouter(deps: ApiDeps): Router {
  const router = Router();
  const { observability } = deps.config;
  if (observability.apiMetricsPort !== undefined) return router;
  const policy = { bearerToken: observability.metricsBearerToken, privateNetworks: deps.config.env !== 'production' };
  const samplers = apiScrapeSamplers(deps);

  router.get('/metrics', async (req, res) => {
    if (!mayScrapeMetrics(policy, req.get('authorization'), req.ip)) {
      const how = policy.privateNetworks ? 'the operator network or a bearer token' : 'a bearer token (or METRICS_PORT, a port of its own)';
      res.status(403).type('text/plain').send(`Forbidden: /metrics is for ${how}\n`);
      return;
    }
    await samplers.refresh();
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  return router;
}
