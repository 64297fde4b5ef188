/**
 * The web console at `/console`, on the API's own origin so it needs no CORS. Built files (`console/dist`, made by
 * `vite build`) are served with a year of caching for the content-hashed assets and none for the page itself; for the
 * dev stack (ConsoleOptions.sources) the sources are served through Vite's dev server in middleware mode, with hot
 * reload. Every other path under `/console/` answers the page, so the browser router can show it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express, { Router, type Request, type Response, type NextFunction } from 'express';
import { REPO_ROOT, type Config } from '../../config';
import type { Logger } from '../../logger';
import { classifyAddress } from '../../net/addressGuard';

export const CONSOLE_PATH = '/console';
const CONSOLE_ROOT = path.join(REPO_ROOT, 'console');
const BUILT = path.join(CONSOLE_ROOT, 'dist');
const DEV_KEY_PLACEHOLDER = '<!--genmedia-dev-key-->';
const ONE_YEAR_SECONDS = 365 * 24 * 3600;

/**
 * What only the dev stack wants of the console (`npm run dev`, `npm run cluster`: scripts/devApi.js), given to the API
 * in process, never read from the environment.
 */
export interface ConsoleOptions {
  /** Serve the console from its sources through Vite, with hot reload over a WebSocket on `hmrPort`. */
  sources?: { hmrPort: number };
  /** The key filled in on the sign-in form of a browser on this machine. */
  devApiKey?: string;
}

interface ConsoleDeps {
  config: Pick<Config, 'minio'>;
  console?: ConsoleOptions;
  logger: Pick<Logger, 'error'>;
}

/** Same origin, plus MinIO's public endpoint: output images and videos, and the presigned upload PUTs. */
function contentSecurityPolicy(storageOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: ${storageOrigin}`,
    `media-src 'self' blob: ${storageOrigin}`,
    `connect-src 'self' ${storageOrigin}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The page with the development key filled in, when one is configured (never in production). */
function withDevKey(html: string, devApiKey: string | undefined): string {
  const tag = devApiKey ? `<meta name="genmedia-dev-key" content="${escapeAttribute(devApiKey)}" />` : '';
  return html.replace(DEV_KEY_PLACEHOLDER, tag);
}

/**
 * Whether the browser runs on this machine: the connection comes from loopback and through no proxy. The socket's
 * address, not `req.ip`: X-Forwarded-For is what a client says, and with API_HOST=0.0.0.0 anyone may connect.
 */
function isLocalBrowser(req: Request): boolean {
  const peer = req.socket.remoteAddress?.replace(/^::ffff:/, '');
  const proxied = req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined;
  return peer !== undefined && classifyAddress(peer) === 'loopback' && !proxied;
}

/** The development key for this request's page: only a browser on this machine gets it. */
function devKeyFor(req: Request, devApiKey: string | undefined): string | undefined {
  return devApiKey !== undefined && isLocalBrowser(req) ? devApiKey : undefined;
}

function isConsolePath(req: Request): boolean {
  return req.path === CONSOLE_PATH || req.path.startsWith(`${CONSOLE_PATH}/`);
}

export function consoleRouter(deps: ConsoleDeps): Router {
  const router = Router();
  router.get(CONSOLE_PATH, (req, res, next) => {
    // Routing is not strict: `/console/` arrives here too.
    if (new URL(req.originalUrl, 'http://x').pathname !== CONSOLE_PATH) return next();
    res.redirect(301, `${CONSOLE_PATH}/`);
  });
  const { sources } = deps.console ?? {};
  if (sources) router.use(devConsole(deps, sources.hmrPort));
  else builtConsole(router, deps);
  return router;
}

function builtConsole(router: Router, deps: ConsoleDeps): void {
  const csp = contentSecurityPolicy(new URL(deps.config.minio.publicEndpoint).origin);
  router.use(
    `${CONSOLE_PATH}/assets`,
    express.static(path.join(BUILT, 'assets'), { immutable: true, maxAge: ONE_YEAR_SECONDS * 1000, index: false, fallthrough: true }),
  );
  let source: string | null = null;
  router.get(`${CONSOLE_PATH}/{*path}`, (req, res, next) => {
    if (req.path.startsWith(`${CONSOLE_PATH}/assets/`)) return next();
    const indexFile = path.join(BUILT, 'index.html');
    if (source === null) {
      if (!existsSync(indexFile)) {
        res.status(503).type('text/plain').set('Cache-Control', 'no-store').send('The console is not built: run `npm run console:build` (npm test and npm run dev do it).\n');
        return;
      }
      source = readFileSync(indexFile, 'utf8');
    }
    const devApiKey = devKeyFor(req, deps.console?.devApiKey);
    // A page holding a key is this browser's alone: no cache keeps it.
    const cacheControl = devApiKey === undefined ? 'no-cache' : 'no-store';
    res.set({ 'Cache-Control': cacheControl, 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff' }).type('html').send(withDevKey(source, devApiKey));
  });
}

/** The part of Vite's dev server used here (Vite is a development dependency, loaded only for the console's sources). */
interface ViteDevServer {
  middlewares: (req: Request, res: Response, next: () => void) => void;
  transformIndexHtml(url: string, html: string): Promise<string>;
}
interface ViteModule {
  createServer(options: object): Promise<ViteDevServer>;
}
const VITE = 'vite';

/** Vite in middleware mode, created on the first console request. */
function devConsole(deps: ConsoleDeps, hmrPort: number) {
  let server: Promise<ViteDevServer> | null = null;
  const start = () =>
    (server ??= (import(VITE) as Promise<ViteModule>).then(({ createServer }) =>
      createServer({
        configFile: path.join(CONSOLE_ROOT, 'vite.config.ts'),
        server: { middlewareMode: true, hmr: { port: hmrPort } },
        appType: 'custom',
      }),
    ));

  return (req: Request, res: Response, next: NextFunction) => {
    if (!isConsolePath(req)) return next();
    start()
      .then((vite) =>
        vite.middlewares(req, res, async () => {
          try {
            const source = readFileSync(path.join(CONSOLE_ROOT, 'index.html'), 'utf8');
            const html = await vite.transformIndexHtml(req.originalUrl, withDevKey(source, devKeyFor(req, deps.console?.devApiKey)));
            res.set('Cache-Control', 'no-cache').type('html').send(html);
          } catch (err) {
            next(err);
          }
        }),
      )
      .catch((err) => {
        deps.logger.error({ err }, 'the console dev server failed');
        next(err);
      });
  };
}
