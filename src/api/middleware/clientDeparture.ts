import type { RequestHandler, Response } from 'express';

interface Departure {
  gone: boolean;
  /** Made by the first `clientDeparture()` only: most requests never ask, and an AbortController costs each one. */
  controller?: AbortController;
}

/**
 * Notices when the connection closes: the client reset it, half-closed it (FIN) or the answer is finished. Registered
 * first, before any handler awaits anything, so a client that leaves while its key or job is still being looked up
 * is noticed: a `close` listener added after that point would never fire.
 */
export function trackClientDeparture(): RequestHandler {
  return (req, res, next) => {
    const departure: Departure = { gone: req.socket.destroyed };
    res.locals.departure = departure;
    if (!departure.gone) {
      res.once('close', () => {
        departure.gone = true;
        departure.controller?.abort();
      });
    }
    next();
  };
}

/** Fires once the client is gone (or the answer is done); check `.aborted` after every await of a long request. */
export function clientDeparture(res: Response): AbortSignal {
  const departure = res.locals.departure as Departure | undefined;
  if (!departure) throw new Error('clientDeparture() used without trackClientDeparture()');
  if (!departure.controller) {
    departure.controller = new AbortController();
    if (departure.gone) departure.controller.abort();
  }
  return departure.controller.signal;
}
