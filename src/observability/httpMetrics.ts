import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import type { Request, RequestHandler, Response } from 'express';
import { Histogram, type Registry } from 'prom-client';
import { HTTP_BUCKETS } from './metrics';

export type HttpMetrics = ReturnType<typeof createHttpMetrics>;

/** The API's request latency, by route template. */
export function createHttpMetrics(registry: Registry) {
  return {
    httpRequestDuration: new Histogram({
      name: 'genmedia_http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: HTTP_BUCKETS,
      registers: [registry],
    }),
  };
}

/**
 * The route template a request matched (`/v1/jobs/:jobId`), never its path: ids stay out of labels. Requests no
 * route matched (404s, static console files) share one label per area.
 */
export function routeLabel(req: Request): string {
  const template = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof template === 'string') return `${req.baseUrl}${template}`;
  if (req.path.startsWith('/console')) return '/console';
  return 'unmatched';
}

let loadedOtelCore: typeof import('@opentelemetry/core') | undefined;

/** OpenTelemetry's core, loaded at the first traced request rather than at start. */
function otelCore(): typeof import('@opentelemetry/core') {
  loadedOtelCore ??= require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  return loadedOtelCore;
}

/**
 * Hands the route template to the HTTP instrumentation as the headers go out, so the request's server span is named
 * `POST /v1/jobs/submit` (what the Express instrumentation does, also where Express loaded before it could patch it).
 */
function nameServerSpanByRoute(req: Request, res: Response): void {
  const active = context.active();
  // Tracing off: no context manager, so no server span to name, and the SDK's core is not loaded at all.
  if (active === ROOT_CONTEXT) return;
  const { getRPCMetadata, RPCType } = otelCore();
  const metadata = getRPCMetadata(active);
  if (metadata?.type !== RPCType.HTTP) return;
  const writeHead = res.writeHead;
  res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
    metadata.route = routeLabel(req);
    return writeHead.apply(this, args);
  } as Response['writeHead'];
}

/** Times every request from arrival to the last byte written (or the client leaving). */
export function httpMetrics(metrics: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    const stop = metrics.httpRequestDuration.startTimer();
    res.once('close', () => stop({ method: req.method, route: routeLabel(req), status_code: String(res.statusCode) }));
    nameServerSpanByRoute(req, res);
    next();
  };
}
