import type { RequestHandler } from 'express';
import { newId } from '../../lib/ids';
import { currentTraceId } from '../../observability/traceContext';

const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a well-formed `X-Request-Id` from the client, otherwise assigns one; with tracing on, adds `X-Trace-Id`. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const id = given && ACCEPTED_REQUEST_ID.test(given) ? given : newId('req', 20);
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const traceId = currentTraceId();
    if (traceId) res.setHeader('X-Trace-Id', traceId);
    next();
  };
}
