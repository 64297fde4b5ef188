/**
 * The compose deployment's dashboard and alerting rules, checked without running Prometheus or Grafana: valid JSON
 * and YAML, and every query names a metric the service exports.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createApiMetrics } from '../../src/api/metrics';
import { createWorkerMetrics } from '../../src/workers/metrics';

const DEPLOY = path.resolve(__dirname, '../../deploy');

/** Temporal SDK metrics the dashboard may use (workers export them through the SDK's Prometheus exporter). */
const TEMPORAL_SDK_METRICS = ['temporal_worker_task_slots_used', 'temporal_worker_task_slots_available', 'temporal_num_pollers'];

async function exportedNames(): Promise<Set<string>> {
  const names = new Set(TEMPORAL_SDK_METRICS);
  for (const { registry } of [createApiMetrics(), createWorkerMetrics()]) {
    for (const metric of await registry.getMetricsAsJSON()) {
      names.add(metric.name);
      if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${metric.name}${suffix}`);
    }
  }
  return names;
}

/** Metric names a PromQL expression reads: identifiers of ours or the SDK's, outside label matchers and strings. */
function metricNames(expr: string): string[] {
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\{[^}]*\}/g, '');
  return [...withoutStrings.matchAll(/\b(genmedia_[a-z0-9_]+|temporal_[a-z0-9_]+)\b/g)].map((m) => m[1]);
}

const dashboard = JSON.parse(fs.readFileSync(path.join(DEPLOY, 'grafana/dashboards/genmedia.json'), 'utf8'));
const rules = parse(fs.readFileSync(path.join(DEPLOY, 'prometheus/alerts.yml'), 'utf8'));
const queries: string[] = dashboard.panels.flatMap((p: { targets?: { expr: string }[] }) => (p.targets ?? []).map((t) => t.expr));
const alerts: { alert: string; expr: string; for?: string; annotations: Record<string, string> }[] = rules.groups.flatMap(
  (g: { rules: unknown[] }) => g.rules,
);

describe('Grafana dashboard', () => {
  it('is provisioned from the file the compose stack mounts', () => {
    const provider = parse(fs.readFileSync(path.join(DEPLOY, 'grafana/provisioning/dashboards/genmedia.yml'), 'utf8'));
    expect(provider.providers[0].options.path).toBe('/var/lib/grafana/dashboards');
    expect(dashboard.uid).toBe('genmedia-overview');
  });

  it('shows job rates, error rates by provider, queue depth, latency percentiles and money flow', () => {
    const all = queries.join('\n');
    for (const needed of [
      'genmedia_jobs_completed_total',
      'genmedia_jobs_failed_total',
      'genmedia_task_queue_backlog',
      'histogram_quantile(0.95',
      'genmedia_charged_micro_cents_total',
      'genmedia_refunded_micro_cents_total',
    ]) {
      expect(all).toContain(needed);
    }
    expect(queries.some((q) => q.includes('sum by (provider)') && q.includes('genmedia_jobs_failed_total'))).toBe(true);
  });

  it('shows the bytes in storage, once across the API processes that all report them', () => {
    expect(queries).toContain('max(genmedia_stored_output_bytes)');
    expect(queries).toContain('max(genmedia_stored_upload_bytes)');
  });

  it('queries only metrics the service exports', async () => {
    const exported = await exportedNames();
    const unknown = queries.flatMap(metricNames).filter((name) => !exported.has(name));
    expect(unknown).toEqual([]);
    expect(queries.flatMap(metricNames).length).toBeGreaterThan(20);
  });

  it('has panels that do not overlap', () => {
    const cells = new Set<string>();
    for (const panel of dashboard.panels) {
      const { x, y, w, h } = panel.gridPos;
      for (let i = x; i < x + w; i++) for (let j = y; j < y + h; j++) {
        expect(cells.has(`${i},${j}`), `${panel.title} overlaps`).toBe(false);
        cells.add(`${i},${j}`);
      }
    }
  });
});

describe('alerting rules', () => {
  it("cover a provider's failure rate, backlog growth, webhook retry exhaustion and admission errors", () => {
    expect(alerts.map((a) => a.alert)).toEqual([
      'GenmediaProviderFailureRateHigh',
      'GenmediaTaskQueueBacklogGrowing',
      'GenmediaWebhookRetriesExhausted',
      'GenmediaAdmissionErrors',
    ]);
    for (const alert of alerts) expect(alert.annotations.summary, alert.alert).toBeTruthy();
  });

  it('read only metrics the service exports, and labels they carry', async () => {
    const exported = await exportedNames();
    for (const alert of alerts) {
      const names = metricNames(alert.expr);
      expect(names.length, alert.alert).toBeGreaterThan(0);
      expect(names.filter((n) => !exported.has(n)), alert.alert).toEqual([]);
    }
    expect(alerts[0].expr).toContain('sum by (provider)');
    expect(alerts[2].expr).toContain('outcome="exhausted"');
  });

  it('are loaded by the Prometheus configuration, which scrapes the API and the workers', () => {
    const prometheus = parse(fs.readFileSync(path.join(DEPLOY, 'prometheus/prometheus.yml'), 'utf8'));
    expect(prometheus.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    const jobs = Object.fromEntries(prometheus.scrape_configs.map((c: { job_name: string }) => [c.job_name, c]));
    // The API's metrics port, not its client port (which a reverse proxy forwards clients to).
    expect(jobs['genmedia-api'].dns_sd_configs[0]).toMatchObject({ names: ['api'], port: 9464 });
    expect(jobs['genmedia-worker'].dns_sd_configs[0].names).toContain('worker-workflows');
    expect(jobs['genmedia-worker'].dns_sd_configs[0].port).toBe(9464);
    const compose = parse(fs.readFileSync(path.join(DEPLOY, '../docker-compose.yml'), 'utf8'));
    const workers = Object.keys(compose.services).filter((name) => name.startsWith('worker-'));
    expect([...jobs['genmedia-worker'].dns_sd_configs[0].names].sort()).toEqual(workers.sort());
  });
});
