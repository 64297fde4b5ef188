import { readdirSync, readlinkSync, statSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isMultipart, receiveBody, receiveFileParts } from '../../../src/api/receiveFiles';
import { ApiError } from '../../../src/api/apiError';

const SPECS = { file: { limitBytes: 1000, label: 'The file' }, manifest: { limitBytes: 100, label: 'The sidecar manifest' } };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'receive-files-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A request as Node hands it over: a multipart body in small chunks, with its headers. */
async function multipartRequest(form: FormData, headers: Record<string, string> = {}) {
  const encoded = new Response(form);
  const body = Buffer.from(await encoded.arrayBuffer());
  const chunks = Array.from({ length: Math.ceil(body.length / 7) }, (_, i) => body.subarray(i * 7, i * 7 + 7));
  return Object.assign(Readable.from(chunks), { headers: { 'content-type': encoded.headers.get('content-type')!, ...headers } });
}

function form(parts: [string, string | Buffer, string?][]): FormData {
  const made = new FormData();
  for (const [name, value, filename] of parts) {
    if (typeof value === 'string') made.append(name, value);
    else made.append(name, new Blob([value]), filename ?? name);
  }
  return made;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string; details: unknown }> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ApiError);
  const { code, message, details } = error as ApiError;
  return { code, message, details };
}

describe('receiveFileParts', () => {
  it('writes each named file part to disk, with its size and first bytes', async () => {
    const file = Buffer.from('0123456789'.repeat(50));
    const manifest = Buffer.from('manifest bytes');
    const parts = await receiveFileParts(await multipartRequest(form([['manifest', manifest], ['file', file]])), dir, SPECS);
    expect(await readFile(parts.get('file')!.path)).toEqual(file);
    expect(parts.get('file')).toMatchObject({ bytes: 500, head: file.subarray(0, 32) });
    expect(await readFile(parts.get('manifest')!.path)).toEqual(manifest);
  });

  it('answers only the parts sent; which are required is the caller’s to say', async () => {
    const parts = await receiveFileParts(await multipartRequest(form([['manifest', Buffer.from('m')]])), dir, SPECS);
    expect([...parts.keys()]).toEqual(['manifest']);
  });

  it('refuses an unknown part, a part sent twice and a text field, naming the part', async () => {
    expect(await refusal(receiveFileParts(await multipartRequest(form([['file', Buffer.from('a')], ['thumb', Buffer.from('b')]])), dir, SPECS))).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'thumb' }],
    });
    expect(await refusal(receiveFileParts(await multipartRequest(form([['file', Buffer.from('a')], ['file', Buffer.from('b')]])), dir, SPECS))).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('more than once'),
    });
    expect(await refusal(receiveFileParts(await multipartRequest(form([['file', 'text']])), dir, SPECS))).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('must be a file'),
    });
  });

  it('refuses a part over its own limit with PAYLOAD_TOO_LARGE, and keeps no more than the limit on disk', async () => {
    const tooBig = await refusal(receiveFileParts(await multipartRequest(form([['file', Buffer.from('a')], ['manifest', Buffer.alloc(101)]])), dir, SPECS));
    expect(tooBig).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { part: 'manifest', maxBytes: 100 } });
    for (const name of await readdir(dir)) expect((await readFile(path.join(dir, name))).length).toBeLessThanOrEqual(1000);
  });

  it('refuses a declared length over every limit together before reading, and a malformed body', async () => {
    const declared = await multipartRequest(form([['file', Buffer.from('a')]]), { 'content-length': String(1100 + 64 * 1024 + 1) });
    expect(await refusal(receiveFileParts(declared, dir, SPECS))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const truncated = Object.assign(Readable.from([Buffer.from('--x\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc')]), {
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
    });
    expect(await refusal(receiveFileParts(truncated, dir, SPECS))).toMatchObject({ code: 'VALIDATION_ERROR' });
    const noBoundary = Object.assign(Readable.from([]), { headers: { 'content-type': 'multipart/form-data' } });
    expect(await refusal(receiveFileParts(noBoundary, dir, SPECS))).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

/** This process's descriptors open on files under `under`, deleted or not, and the bytes they hold. */
function openFilesUnder(under: string): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (!target.startsWith(under)) continue;
    count += 1;
    try {
      bytes += statSync(`/proc/self/fd/${fd}`).size;
    } catch {
      // closed meanwhile
    }
  }
  return { count, bytes };
}

const MiB = 1024 * 1024;

/**
 * A multipart body whose file part sends `bytes` and then stops: the client goes away (the request errors and
 * closes, as Node's does on a reset), or, with `how: 'close'`, the request closes before its end without an error.
 */
function abortedMultipart(bytes: number, how: 'error' | 'close') {
  const boundary = 'xyzboundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp4"\r\nContent-Type: video/mp4\r\n\r\n`);
  const req = Object.assign(new Readable({ read() {} }), { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
  req.push(head);
  for (let sent = 0; sent < bytes; sent += MiB) req.push(Buffer.alloc(Math.min(MiB, bytes - sent), 1));
  setTimeout(() => (how === 'error' ? req.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })) : req.destroy()), 100);
  return req;
}

describe('a body that ends before it is complete', () => {
  it.each(['error', 'close'] as const)('closes every part it was writing (%s), so deleting the files frees their blocks', async (how) => {
    const specs = { file: { limitBytes: 64 * MiB, label: 'The file' } };
    for (let i = 0; i < 4; i++) {
      const error = await receiveFileParts(abortedMultipart(8 * MiB, how), dir, specs).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    // What the route does next: it deletes the directory.
    await rm(dir, { recursive: true, force: true });
    await new Promise((r) => setTimeout(r, 50));
    expect(openFilesUnder(dir)).toEqual({ count: 0, bytes: 0 });
  });

  it('closes the raw body’s file too', async () => {
    const req = Object.assign(new Readable({ read() {} }), { headers: {} });
    req.push(Buffer.alloc(4 * MiB, 1));
    setTimeout(() => req.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })), 100);
    await expect(receiveBody(req, path.join(dir, 'file'), 64 * MiB, () => new ApiError('PAYLOAD_TOO_LARGE', 'too large'))).rejects.toThrow('aborted');
    await rm(dir, { recursive: true, force: true });
    expect(openFilesUnder(dir)).toEqual({ count: 0, bytes: 0 });
  });
});

describe('isMultipart', () => {
  it('tells a multipart body from a raw one', () => {
    expect(isMultipart({ 'content-type': 'multipart/form-data; boundary=x' })).toBe(true);
    expect(isMultipart({ 'content-type': 'application/octet-stream' })).toBe(false);
    expect(isMultipart({})).toBe(false);
  });
});
