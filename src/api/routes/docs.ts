/**
 * `GET /docs`: the interactive API reference, rendered in the browser from `/openapi.json` by Scalar. The renderer's
 * self-contained bundle is served from the installed package under a versioned path (cached for a year), and the
 * page may load nothing from another origin: no CDN, no web fonts, no telemetry.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Router } from 'express';

/** The installed package's folder: its `exports` hide package.json and the browser bundle from `require.resolve`. */
function packageDir(name: string): string {
  const found = (require.resolve.paths(name) ?? []).map((dir) => path.join(dir, name)).find((dir) => existsSync(path.join(dir, 'package.json')));
  if (!found) throw new Error(`${name} is not installed`);
  return found;
}

const SCALAR_PACKAGE = packageDir('@scalar/api-reference');
const SCALAR_VERSION = (JSON.parse(readFileSync(path.join(SCALAR_PACKAGE, 'package.json'), 'utf8')) as { version: string }).version;
const SCALAR_BUNDLE = path.join(SCALAR_PACKAGE, 'dist', 'browser', 'standalone.js');

export const DOCS_PATHS = {
  page: '/docs',
  renderer: `/docs/scalar-${SCALAR_VERSION}.js`,
  setup: '/docs/setup.js',
} as const;

const ONE_YEAR_SECONDS = 365 * 24 * 3600;

/** Same origin only; Scalar sets inline styles and uses blob: workers. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>genmedia API reference</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="app"></div>
    <script src="${DOCS_PATHS.renderer}"></script>
    <script src="${DOCS_PATHS.setup}"></script>
  </body>
</html>
`;

// Everything that would reach another origin is off: web fonts, telemetry, the hosted AI agent and MCP generator.
const SETUP = `Scalar.createApiReference('#app', {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  defaultOpenAllTags: true,
  documentDownloadType: 'json',
  metaData: { title: 'genmedia API reference' },
});
`;

export function docsRouter(): Router {
  const router = Router();
  router.get(DOCS_PATHS.page, (_req, res) => {
    res.set('Content-Security-Policy', CONTENT_SECURITY_POLICY).set('Cache-Control', 'no-cache').type('html').send(PAGE);
  });
  router.get(DOCS_PATHS.setup, (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('application/javascript').send(SETUP);
  });
  router.get(DOCS_PATHS.renderer, (_req, res) => {
    res.sendFile(SCALAR_BUNDLE, { maxAge: ONE_YEAR_SECONDS * 1000, immutable: true, headers: { 'Content-Type': 'application/javascript; charset=utf-8' } });
  });
  return router;
}
