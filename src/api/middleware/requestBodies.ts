/**
 * Request bodies are read only by the routes that take one, after the route and the caller's credential are
 * checked, up to that route's own limit. Bodies being read at once share budgets of bytes: one for API clients (and
 * within it a share per account) and one for providers' callbacks, so neither a flood of large posts nor slow bodies
 * from one caller can take the memory or the reading capacity of another. A body must arrive within a time limit.
 * A body that would pass a bound is refused before a byte of it is read (and the error handler closes the
 * connection rather than drain it).
 */
import express, { type RequestHandler, type Response } from 'express';
import { ApiError } from '../apiError';
import { sendError } from './errors';
import { rejectNulInBody } from './rejectNul';

export interface BodyReaderOptions {
  /** Bytes of client bodies (submit, estimate, presign) read at once, all accounts together. */
  maxBufferedBytes: number;
  /** Bytes of client bodies one account may have in reading at once. */
  maxBufferedBytesPerAccount: number;
  /** Bytes of provider callback bodies read at once. */
  maxBufferedCallbackBytes: number;
  /** The longest a body may take to arrive once its request is accepted. */
  bodyTimeoutMs: number;
}

export interface BodyReaders {
  /** A JSON object of at most `limitBytes` from an authenticated client, NUL-free, into `req.body`. */
  json(limitBytes: number): RequestHandler[];
  /** A `multipart/form-data` body of at most `limitBytes` from an authenticated client, as a Buffer in `req.body`. */
  multipart(limitBytes: number): RequestHandler[];
  /**
   * A body of at most `limitBytes` that the route streams to disk itself (a file to verify). It reserves what a body
   * being streamed holds in memory (`STREAMED_BODY_RESERVATION_BYTES`, or its declared length when smaller) from the
   * client budgets, and is held to the same time limit: past it, the answer is 408 and the request is destroyed, so
   * whatever reads it fails at once and closes what it was writing.
   */
  stream(limitBytes: number): RequestHandler[];
  /**
   * A provider callback's raw bytes, as a Buffer in `req.body` (signatures cover the bytes), at most `limitBytes`: a
   * number, or read from the response's locals once the callback's head was admitted (each kind has its own).
   */
  callback(limitBytes: number | ((res: Response) => number)): RequestHandler[];
  /** Bytes reserved by bodies being read now, clients and callbacks together. */
  bufferedBytes(): number;
}

/** What a body streamed to disk holds in memory at once, counted against the client budgets while it arrives. */
export const STREAMED_BODY_RESERVATION_BYTES = 1024 * 1024;

class ByteBudget {
  private reserved = 0;
  private readonly byCaller = new Map<string, number>();

  constructor(
    private readonly totalBytes: number,
    /** Absent: callers are not told apart. */
    private readonly perCallerBytes?: number,
  ) {}

  get bytes(): number {
    return this.reserved;
  }

  /** Reserves `bytes` for `caller` until `release` is called; the refusal says which bound it would pass. */
  reserve(caller: string | undefined, bytes: number): ApiError | (() => void) {
    const callerBytes = caller === undefined ? 0 : (this.byCaller.get(caller) ?? 0);
    if (this.perCallerBytes !== undefined && callerBytes + bytes > this.perCallerBytes) {
      return new ApiError('RATE_LIMIT_EXCEEDED', 'This account has too many request bodies in transit at once; retry shortly', undefined, {
        'Retry-After': '1',
      });
    }
    if (this.reserved + bytes > this.totalBytes) {
      return new ApiError('SERVICE_UNAVAILABLE', 'The service is reading too many request bodies at once; retry shortly', undefined, {
        'Retry-After': '1',
      });
    }
    this.reserved += bytes;
    if (caller === undefined) {
      return () => {
        this.reserved -= bytes;
      };
    }
    this.byCaller.set(caller, callerBytes + bytes);
    return () => {
      this.reserved -= bytes;
      const left = (this.byCaller.get(caller) ?? bytes) - bytes;
      if (left > 0) this.byCaller.set(caller, left);
      else this.byCaller.delete(caller);
    };
  }
}

/** A body still arriving when the limit passes is answered 408 and its connection closed (the error handler's rule). */
function answerSlowBody(res: Response, timeoutMs: number): void {
  if (res.headersSent) return;
  sendError(res, new ApiError('REQUEST_TIMEOUT', `The request body did not arrive within ${timeoutMs} ms`), { closeConnection: true });
}

/** `express.raw` for any type, up to a limit known now or only once the request's head was looked at. */
function rawUpTo(limit: number | ((res: Response) => number)): RequestHandler {
  if (typeof limit === 'number') return express.raw({ type: () => true, limit });
  const readers = new Map<number, RequestHandler>();
  return (req, res, next) => {
    const bytes = limit(res);
    let reader = readers.get(bytes);
    if (!reader) readers.set(bytes, (reader = express.raw({ type: () => true, limit: bytes })));
    return reader(req, res, next);
  };
}

export function createBodyReaders(options: BodyReaderOptions): BodyReaders {
  const clients = new ByteBudget(options.maxBufferedBytes, options.maxBufferedBytesPerAccount);
  const callbacks = new ByteBudget(options.maxBufferedCallbackBytes);

  /** Reserves the body's declared length (or the route's limit when it declares none) until the request ends. */
  const reserve =
    (
      budget: ByteBudget,
      callerOf: (res: Response) => string | undefined,
      limit: number | ((res: Response) => number),
      streamed: { reservationBytes: number } | undefined = undefined,
    ): RequestHandler =>
    (req, res, next) => {
      const limitBytes = typeof limit === 'number' ? limit : limit(res);
      const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
      if (declared === 0 || (declared === undefined && req.headers['transfer-encoding'] === undefined)) return next();
      if (declared !== undefined && declared > limitBytes) {
        throw new ApiError('PAYLOAD_TOO_LARGE', `The request body may be at most ${limitBytes} bytes`, { maxBytes: limitBytes });
      }
      const reservation = budget.reserve(callerOf(res), Math.min(declared ?? limitBytes, streamed?.reservationBytes ?? Infinity));
      if (reservation instanceof ApiError) throw reservation;
      const timer = setTimeout(() => {
        answerSlowBody(res, options.bodyTimeoutMs);
        // A body read by its route as a stream is ended here, so that the route stops waiting and closes its files.
        // Once the answer is out (or a second later, for a client that reads nothing), so that it is not cut off.
        if (streamed && !req.readableEnded) {
          const end = () => req.destroy(new Error(`the request body did not arrive within ${options.bodyTimeoutMs} ms`));
          if (res.writableFinished) end();
          else {
            res.once('finish', end);
            setTimeout(end, 1_000).unref();
          }
        }
      }, options.bodyTimeoutMs);
      const settle = () => clearTimeout(timer);
      req.once('end', settle);
      res.once('close', () => {
        settle();
        reservation();
      });
      next();
    };

  const account = (res: Response) => String((res.locals.auth as { account?: { id: string } } | undefined)?.account?.id ?? '');
  const anyCaller = () => undefined;

  return {
    json: (limitBytes) => [reserve(clients, account, limitBytes), express.json({ limit: limitBytes, strict: true }), rejectNulInBody()],
    multipart: (limitBytes) => [reserve(clients, account, limitBytes), express.raw({ type: 'multipart/form-data', limit: limitBytes })],
    stream: (limitBytes) => [reserve(clients, account, limitBytes, { reservationBytes: STREAMED_BODY_RESERVATION_BYTES })],
    callback: (limitBytes) => [reserve(callbacks, anyCaller, limitBytes), rawUpTo(limitBytes)],
    bufferedBytes: () => clients.bytes + callbacks.bytes,
  };
}
