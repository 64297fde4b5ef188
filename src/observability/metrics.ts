/**
 * The registry of the service's Prometheus metrics. Each feature declares its own metrics on a registry it is given
 * (src/jobs/jobMetrics.ts, src/webhooks/metrics.ts, …), and each program assembles its process's set on a registry
 * of its own (src/api/metrics.ts, src/workers/metrics.ts; tests run several APIs and workers in one process). Label
 * values come from bounded sets only: catalog slugs and provider ids, route templates, stable error codes; never a job,
 * account or request id.
 */
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

/** Request latency buckets, seconds: from a cached read to a `Prefer: wait` that waits out its limit. */
export const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A stable error code as a label value; anything else (a code an upstream made up) is counted as OTHER. */
export function codeLabel(code: string | undefined | null): string {
  return code && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : 'OTHER';
}

export function newRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'genmedia_' });
  dropGaugesNamedTotal(registry);
  return registry;
}

/**
 * prom-client's defaults include gauges named `*_total` (`nodejs_active_handles_total`, `..._requests_total`,
 * `..._resources_total`), a suffix Prometheus reserves for counters: `promtool check metrics` refuses every scrape that
 * has one. Each is the sum of the gauge of the same name without the suffix (by `type`), so nothing is lost.
 */
function dropGaugesNamedTotal(registry: Registry): void {
  for (const metric of registry.getMetricsAsArray()) {
    if (metric.name.endsWith('_total') && !(metric instanceof Counter)) registry.removeSingleMetric(metric.name);
  }
}
