import type { RequestHandler } from 'express';
import { newId } from '../../lib/ids';
import { currentTraceId } from '../../lib/traceContext';

const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Echoes a well-formed `X-Request-Id` from the client, otherwise assigns one; with tracing on, adds `X-Trace-Id`.
 * Every request also gets an id of the server's own (`res.locals.serverRequestId`, the answer's id when the client
 * sent none): the client's is only a label it chose, which the audit log keeps beside the server's
 * (`res.locals.clientRequestId`).
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const clientId = given && ACCEPTED_REQUEST_ID.test(given) ? given : undefined;
    const serverId = newId('req', 20);
    const id = clientId ?? serverId;
    res.locals.requestId = id;
    res.locals.serverRequestId = serverId;
    res.locals.clientRequestId = clientId;
    res.setHeader('X-Request-Id', id);
    const traceId = currentTraceId();
    if (traceId) res.setHeader('X-Trace-Id', traceId);
    next();
  };
}
