/**
 * Files that arrive in a request, streamed to disk within a byte limit and never held whole in memory: the raw body
 * as one file, or the named file parts of a `multipart/form-data` body (parsed as it streams by busboy).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { IncomingHttpHeaders } from 'node:http';
import { DomainError } from '../shared/errors';
import { ApiError } from './apiError';

/** A file on disk and its first bytes (enough to tell its type). */
export interface ReceivedFile {
  path: string;
  bytes: number;
  head: Buffer;
}

const HEAD_BYTES = 32;

type IncomingBody = Readable & { headers: IncomingHttpHeaders };

/** Counts the bytes through it, keeps the first ones, and fails with `tooLarge` once they pass `limit`. */
function byteLimit(limit: number, seen: { bytes: number; head: Buffer }, tooLarge: () => ApiError): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen.bytes += chunk.length;
      if (seen.head.length < HEAD_BYTES) seen.head = Buffer.concat([seen.head, chunk.subarray(0, HEAD_BYTES - seen.head.length)]);
      if (seen.bytes > limit) done(tooLarge());
      else done(null, chunk);
    },
  });
}

function declaredLength(req: IncomingBody): number | undefined {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) ? declared : undefined;
}

/** The request body into `file`, at most `limit` bytes. */
export async function receiveBody(req: IncomingBody, file: string, limit: number, tooLarge: () => ApiError): Promise<ReceivedFile> {
  if ((declaredLength(req) ?? 0) > limit) throw tooLarge();
  const seen = { bytes: 0, head: Buffer.alloc(0) };
  const out = createWriteStream(file);
  const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
  try {
    // A client that leaves mid-body errors the request, and pipeline destroys the write with it.
    await pipeline(req, byteLimit(limit, seen, tooLarge), out);
  } finally {
    // Answered only once the file is closed, so that deleting it frees its blocks.
    out.destroy();
    await closed;
  }
  return { path: file, ...seen };
}

export function isMultipart(headers: IncomingHttpHeaders): boolean {
  return /^multipart\/form-data\s*(;|$)/i.test(headers['content-type'] ?? '');
}

export interface FilePartSpec {
  limitBytes: number;
  /** Names the part in messages, e.g. "The file". */
  label: string;
}

/** Room for the parts' headers and boundaries beside their bytes, in a declared Content-Length. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

function refused(part: string, message: string): ApiError {
  return new ApiError('VALIDATION_ERROR', message, [{ path: part, message }]);
}

function partTooLarge(name: string, spec: FilePartSpec): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `${spec.label} (part ${name}) is over its limit of ${spec.limitBytes} bytes`, { part: name, maxBytes: spec.limitBytes });
}

/**
 * The file parts of a multipart body, each into `dir` within its own limit. Only the parts named in `specs` are taken,
 * each at most once and as a file; any other part, a text field or a repeated part is refused with VALIDATION_ERROR
 * naming it, a part over its limit with PAYLOAD_TOO_LARGE. On a refusal the rest of the body is left unread (the
 * error handler closes the connection). Which parts are required is the caller's to check.
 */
export function receiveFileParts(req: IncomingBody, dir: string, specs: Record<string, FilePartSpec>): Promise<Map<string, ReceivedFile>> {
  const total = Object.values(specs).reduce((sum, spec) => sum + spec.limitBytes, MULTIPART_OVERHEAD_BYTES);
  if ((declaredLength(req) ?? 0) > total) {
    return Promise.reject(new ApiError('PAYLOAD_TOO_LARGE', `The request body may be at most ${total} bytes`, { maxBytes: total }));
  }
  let parser: busboy.Busboy;
  try {
    // Text fields are refused as they come, so busboy's own limits only bound what it buffers before telling us.
    parser = busboy({ headers: req.headers, limits: { fieldSize: 1024, parts: Object.keys(specs).length + 1 } });
  } catch (err) {
    return Promise.reject(refused('(body)', `The multipart body could not be read: ${(err as Error).message}`));
  }

  return new Promise((resolve, reject) => {
    const received = new Map<string, ReceivedFile>();
    /** Each part being written: its stream from busboy, its file, and the write's end (settled once the file is closed). */
    const writes: { part: Readable; out: WriteStream; done: Promise<void> }[] = [];
    let settled = false;

    // Every write is destroyed and its file closed before the refusal is answered: the caller then deletes the files,
    // and a file deleted while still open would keep its blocks (and a descriptor) for as long as the process runs.
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      parser.removeAllListeners();
      // Later parser events (a part still streaming) must not throw unhandled.
      parser.on('error', () => {});
      for (const { part, out } of writes) {
        part.destroy();
        out.destroy();
      }
      const refusal = err instanceof DomainError ? ApiError.of(err) : refused('(body)', `The multipart body could not be read: ${(err as Error).message}`);
      void Promise.allSettled(writes.map((write) => write.done)).then(() => reject(refusal));
    };

    parser.on('file', (name, stream) => {
      const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
      if (!spec) {
        stream.resume();
        return fail(refused(name, `Unknown part ${JSON.stringify(name)}: send only ${Object.keys(specs).join(' and ')}`));
      }
      if (received.has(name)) {
        stream.resume();
        return fail(refused(name, `The part ${name} was sent more than once: send one file in it`));
      }
      const file: ReceivedFile = { path: path.join(dir, `part-${name}`), bytes: 0, head: Buffer.alloc(0) };
      received.set(name, file);
      const out = createWriteStream(file.path);
      const closed = new Promise<void>((resolveClosed) => out.once('close', () => resolveClosed()));
      const written = pipeline(stream, byteLimit(spec.limitBytes, file, () => partTooLarge(name, spec)), out).catch((err: unknown) => {
        fail(err);
      });
      writes.push({ part: stream, out, done: Promise.all([written, closed]).then(() => undefined) });
    });
    parser.on('field', (name) => {
      fail(refused(name, Object.hasOwn(specs, name) ? `The part ${name} must be a file (with a filename), not a text field` : `Unknown part ${JSON.stringify(name)}: send only ${Object.keys(specs).join(' and ')}`));
    });
    parser.on('partsLimit', () => fail(refused('(body)', `Too many parts: send only ${Object.keys(specs).join(' and ')}`)));
    parser.on('error', fail);
    parser.on('close', () => {
      void Promise.all(writes.map((write) => write.done)).then(() => {
        if (settled) return;
        settled = true;
        resolve(received);
      });
    });
    req.on('error', fail);
    // A client that leaves mid-body (or a body ended by its time limit) closes the request before its end.
    req.on('close', () => {
      if (!req.readableEnded) fail(new Error('the request ended before its body did'));
    });
    req.pipe(parser);
  });
}
