import type { Request, RequestHandler } from 'express';
import type { ApiMetrics } from './metrics';

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

/** Times every request from arrival to the last byte written (or the client leaving). */
export function httpMetrics(metrics: ApiMetrics): RequestHandler {
  return (req, res, next) => {
    const stop = metrics.httpRequestDuration.startTimer();
    res.once('close', () => stop({ method: req.method, route: routeLabel(req), status_code: String(res.statusCode) }));
    next();
  };
}
