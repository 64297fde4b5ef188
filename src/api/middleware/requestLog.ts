import type { RequestHandler } from 'express';
import type { Logger } from '../../logger';
import { redactCredentials, redactFileIds } from '../../observability/redaction';

/**
 * A file URL's id is its credential (anyone holding the URL reads the file), so it never reaches the logs: not in
 * `/v1/files/<fileId>`, nor in `/v1/uploads/<fileId>` (the same id). Nor does a credential in a query (a Cog
 * webhook's `secret`, an events URL's `token`), should a query be part of what is logged.
 */
export function loggablePath(path: string): string {
  return redactCredentials(redactFileIds(path));
}

/**
 * One structured line per request, with its request id, status and duration; when the client chose the request id,
 * also the server's own (`serverRequestId`, the one the audit log keeps).
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : 'info';
      const { requestId, serverRequestId } = res.locals;
      logger[level](
        {
          requestId,
          ...(serverRequestId && serverRequestId !== requestId ? { serverRequestId } : {}),
          method: req.method,
          path: loggablePath(req.path),
          status: res.statusCode,
          durationMs,
        },
        'request',
      );
    });
    next();
  };
}
