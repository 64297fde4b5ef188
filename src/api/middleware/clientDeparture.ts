import type { RequestHandler, Response } from 'express';

/**
 * An AbortSignal per request that fires when the connection closes: the client reset it, half-closed it (FIN) or the
 * answer is finished. Registered first, before any handler awaits anything, so a client that leaves while its key or
 * job is still being looked up is noticed: a `close` listener added after that point would never fire.
 */
export function trackClientDeparture(): RequestHandler {
  return (req, res, next) => {
    const controller = new AbortController();
    res.locals.departure = controller.signal;
    if (req.socket.destroyed) controller.abort();
    else res.once('close', () => controller.abort());
    next();
  };
}

/** Fires once the client is gone (or the answer is done); check `.aborted` after every await of a long request. */
export function clientDeparture(res: Response): AbortSignal {
  const signal = res.locals.departure as AbortSignal | undefined;
  if (!signal) throw new Error('clientDeparture() used without trackClientDeparture()');
  return signal;
}
