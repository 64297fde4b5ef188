/**
 * Request bodies are read only by the routes that take one, after the route and the caller's credential are
 * checked, up to that route's own limit; and all bodies being read at once share one budget of bytes, so a flood of
 * large posts costs at most that budget of memory. A body that would pass either bound is refused before a byte of
 * it is read (and the error handler closes the connection rather than drain it).
 */
import express, { type RequestHandler } from 'express';
import { ApiError } from '../../shared/errors';
import { rejectNulInBody } from './rejectNul';

export interface BodyReaders {
  /** A JSON object of at most `limitBytes`, NUL-free, into `req.body`. */
  json(limitBytes: number): RequestHandler[];
  /** The raw bytes of at most `limitBytes`, as a Buffer in `req.body` (for signatures over the exact bytes). */
  raw(limitBytes: number): RequestHandler[];
  /** Bytes reserved by bodies being read now. */
  bufferedBytes(): number;
}

export function createBodyReaders(options: { maxBufferedBytes: number }): BodyReaders {
  let reserved = 0;

  /** Reserves the body's declared length (or the route's limit when it declares none) until the request ends. */
  const reserve =
    (limitBytes: number): RequestHandler =>
    (req, res, next) => {
      const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
      if (declared === 0 || (declared === undefined && req.headers['transfer-encoding'] === undefined)) return next();
      if (declared !== undefined && declared > limitBytes) {
        throw new ApiError('PAYLOAD_TOO_LARGE', `The request body may be at most ${limitBytes} bytes`, { maxBytes: limitBytes });
      }
      const bytes = declared ?? limitBytes;
      if (reserved + bytes > options.maxBufferedBytes) {
        throw new ApiError('SERVICE_UNAVAILABLE', 'The service is reading too many request bodies at once; retry shortly', undefined, {
          'Retry-After': '1',
        });
      }
      reserved += bytes;
      res.once('close', () => {
        reserved -= bytes;
      });
      next();
    };

  return {
    json: (limitBytes) => [reserve(limitBytes), express.json({ limit: limitBytes, strict: true }), rejectNulInBody()],
    raw: (limitBytes) => [reserve(limitBytes), express.raw({ type: () => true, limit: limitBytes })],
    bufferedBytes: () => reserved,
  };
}
