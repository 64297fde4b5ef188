import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app';
import { CONSOLE_PATH } from '../../../src/api/routes/console';
import { DOCS_PATHS } from '../../../src/api/routes/docs';
import type { RunningApi } from '../../../src/api/server';
import { request, startTestApi } from '../../support/api';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  /** A router, or routersByPrefix's dispatcher with the routers behind it and their prefixes. */
  handle?: { stack?: Layer[]; routers?: readonly (readonly [readonly string[], { stack?: Layer[] }])[] };
}

/** Every `METHOD /path` the Express app serves, with parameters in OpenAPI form (`:id` and `*id` → `{id}`). */
function servedRoutes(stack: Layer[]): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const path = layer.route.path.replace(/[:*](\w+)/g, '{$1}');
      return Object.keys(layer.route.methods)
        .filter((m) => m !== '_all')
        .map((method) => `${method.toUpperCase()} ${path}`);
    }
    if (layer.handle?.routers) return layer.handle.routers.flatMap(([, router]) => servedRoutes(router.stack ?? []));
    return layer.handle?.stack ? servedRoutes(layer.handle.stack) : [];
  });
}

describe('OpenAPI document', () => {
  let api: RunningApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api?.stop());

  it('documents exactly the routes the app serves', async () => {
    const app = createApp(api.deps) as unknown as { router: { stack: Layer[] } };
    // The document itself, the pages that render it, the web console and the Prometheus scrape are not API operations.
    const notOperations = new Set(['GET /openapi.json', 'GET /metrics', ...Object.values(DOCS_PATHS).map((p) => `GET ${p}`)]);
    const isConsolePage = (route: string) => route === `GET ${CONSOLE_PATH}` || route.startsWith(`GET ${CONSOLE_PATH}/`);
    const served = servedRoutes(app.router.stack).filter((r) => !notOperations.has(r) && !isConsolePage(r)).sort();
    const doc = (await request(`${api.url}/openapi.json`)).body;
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(served.length).toBeGreaterThan(15);
    expect(documented).toEqual(served);
  });

  it('serves every route under a prefix of its router, so routersByPrefix lets its requests in', () => {
    const app = createApp(api.deps) as unknown as { router: { stack: Layer[] } };
    const dispatchers = app.router.stack.filter((layer) => layer.handle?.routers);
    expect(dispatchers).toHaveLength(1);
    const outside = dispatchers[0]!.handle!.routers!.flatMap(([prefixes, router]) =>
      servedRoutes(router.stack ?? [])
        .map((route) => route.split(' ')[1]!)
        .filter((path) => !prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))),
    );
    expect(outside).toEqual([]);
  });

  it('gives every operation a success response and, on keyed routes, its security scheme', async () => {
    const doc = (await request(`${api.url}/openapi.json`)).body;
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const statuses = Object.keys(op.responses ?? {});
        expect(statuses.some((s) => /^[23]\d\d$/.test(s)), `${method} ${path}`).toBe(true);
        const keyed = path.startsWith('/v1/jobs') || path.startsWith('/v1/account') || path.startsWith('/v1/uploads') || path === '/v1/models' || path.startsWith('/v1/models/') || path === '/v1/providers';
        if (keyed) expect(op.security?.length, `${method} ${path} security`).toBeGreaterThan(0);
      }
    }
  });
});
