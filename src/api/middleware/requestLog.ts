import type { RequestHandler } from 'express';
import type { Logger } from '../../logger';

/** One structured line per request, with its request id, status and duration. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : 'info';
      logger[level](
        { requestId: res.locals.requestId, method: req.method, path: req.path, status: res.statusCode, durationMs },
        'request',
      );
    });
    next();
  };
}
