/**
 * The catalog against the upstreams' published shutdowns: no version that runs jobs (active or deprecated) routes to
 * an upstream model past its shutdown date, where every job would fail, and a model whose version was retired names
 * the replacement: a newer version runs on it, or the description gives the shutdown date and the replacement's id.
 */
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../src/catalog/catalogFiles';

interface Shutdown {
  upstream: string;
  model: string;
  /** The day from which the upstream answers no more calls to the model. */
  shutdown: string;
  replacement: string;
  source: string;
}

/** The shutdowns of upstream models the catalog has routed to, from each upstream's own pages. */
const SHUTDOWNS: Shutdown[] = [
  {
    upstream: 'google',
    model: 'gemini-2.5-flash-image',
    shutdown: '2026-10-02',
    replacement: 'gemini-3.1-flash-image',
    source: 'https://ai.google.dev/gemini-api/docs/deprecations',
  },
  {
    upstream: 'google',
    model: 'veo-3.0-fast-generate-001',
    shutdown: '2026-06-30',
    replacement: 'veo-3.1-fast-generate-001',
    source: 'https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/veo/3-0-generate',
  },
  {
    upstream: 'google',
    model: 'veo-3.1-generate-preview',
    shutdown: '2026-10-22',
    replacement: 'gemini-omni-1.1-flash',
    source: 'https://ai.google.dev/gemini-api/docs/deprecations',
  },
  {
    upstream: 'openai',
    model: 'gpt-image-1',
    shutdown: '2026-10-23',
    replacement: 'gpt-image-2',
    source: 'https://developers.openai.com/api/docs/deprecations',
  },
];

const RUNS_JOBS = new Set(['active', 'deprecated']);

describe('the catalog and the upstreams’ shutdowns', () => {
  const catalog = loadCatalog();
  const routed = catalog.models.flatMap((model) =>
    model.versions.flatMap((version) => version.routes.filter((route) => route.upstream).map((route) => ({ model, version, route }))),
  );
  const past = SHUTDOWNS.filter((s) => Date.parse(`${s.shutdown}T00:00:00Z`) <= Date.now());

  it('routes no version that runs jobs to an upstream model that has been shut down', () => {
    const offending = routed
      .filter(({ version, route }) => RUNS_JOBS.has(version.status) && past.some((s) => s.upstream === route.provider && s.model === route.upstream!.model))
      .map(({ model, version, route }) => `${model.slug} ${version.versionId} (${version.status}) → ${route.upstream!.model}`);
    expect(offending).toEqual([]);
  });

  it('names the replacement of every shut-down model it still lists, as a newer version or in the description', () => {
    for (const { model, route } of routed) {
      const shutdown = past.find((s) => s.upstream === route.provider && s.model === route.upstream!.model);
      if (!shutdown) continue;
      const onReplacement = model.versions.some((v) => RUNS_JOBS.has(v.status) && v.routes.some((r) => r.upstream?.model === shutdown.replacement));
      const named = model.description.includes(shutdown.shutdown) && model.description.includes(shutdown.replacement);
      expect(onReplacement || named, `${model.slug}: ${shutdown.model} was shut down on ${shutdown.shutdown} (${shutdown.source})`).toBe(true);
    }
  });
});
