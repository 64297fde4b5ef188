/**
 * The batch archive's results.jsonl is written as the results are read a second time, never gathered first: by the
 * time the last result is read, most of the file has already gone out to the client.
 */
import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import type { Response } from 'express';
import { describe, expect, it } from 'vitest';
import { archiveName, streamArchive } from '../../../src/api/routes/batchArchive';
import { streamResults } from '../../../src/api/routes/batchResults';
import type { BatchResult } from '../../../src/batches/results';
import type { Storage } from '../../../src/storage/storage';

const LINES = 3000;

/** A response that counts the bytes it is sent. */
class CountingResponse extends Writable {
  bytes = 0;
  statusCode = 0;
  headers = new Map<string, string>();
  status(code: number) {
    this.statusCode = code;
    return this;
  }
  setHeader(name: string, value: string) {
    this.headers.set(name, value);
    return this;
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void) {
    this.bytes += chunk.length;
    setImmediate(done);
  }
}

function result(n: number, withOutput: boolean): BatchResult {
  // Random text: the ZIP cannot shrink it, so the bytes sent follow the bytes read.
  const prompt = randomBytes(300).toString('base64');
  const stored = withOutput ? [{ key: `out/${n}.png`, contentType: 'image/png', sizeBytes: 4 }] : [];
  return {
    line: { line: n, customId: `item-${n}-${prompt}`, jobId: `job_${n}`, status: 'completed', outputs: [], error: null, costMicroCents: 1 },
    stored: stored as BatchResult['stored'],
  };
}

describe('streamArchive', () => {
  it('writes results.jsonl while it reads the results a second time', async () => {
    const res = new CountingResponse();
    const storage = { outputsBucket: 'outputs', getStream: async () => Readable.from([Buffer.from('PNG!')]) } as unknown as Storage;
    const readings: number[] = [];
    let sentBeforeLastLine = -1;
    let sentWhenSecondReadingBegan = -1;
    const read = async function* () {
      const reading = readings.push(0) - 1;
      if (reading === 1) sentWhenSecondReadingBegan = res.bytes;
      for (let n = 1; n <= LINES; n++) {
        if (reading === 1 && n === LINES) sentBeforeLastLine = res.bytes;
        readings[reading]! += 1;
        yield result(n, n <= 3);
      }
    };
    // Each call, or each iteration, is a new reading of the results.
    const readResults = Object.assign(() => read(), { [Symbol.asyncIterator]: () => read() });

    await streamArchive(res as unknown as Response, 'bat_1', readResults, storage, new AbortController().signal);

    expect(res.statusCode).toBe(200);
    expect(readings).toEqual([LINES, LINES]);
    // About 1.2 MB of lines: all but the last few buffers of it are out before the last line is read.
    expect(sentBeforeLastLine - sentWhenSecondReadingBegan).toBeGreaterThan(600_000);
  });
});

/** A response whose client stopped reading: it takes a first buffer and never asks for another. */
class StalledResponse extends Writable {
  statusCode = 0;
  constructor() {
    super({ highWaterMark: 1024 });
  }
  status(code: number) {
    this.statusCode = code;
    return this;
  }
  setHeader() {
    return this;
  }
  override _write(_chunk: Buffer, _encoding: BufferEncoding, _done: () => void) {
    // Never done: the client is gone, or reads nothing more.
  }
}

/** A storage object that never ends unless destroyed, as a large output read from MinIO by a stalled client. */
function endlessObject(opened: Readable[]): Storage {
  return {
    outputsBucket: 'outputs',
    async getStream() {
      const body = new Readable({ read() { this.push(randomBytes(16 * 1024)); } });
      opened.push(body);
      return body;
    },
  } as unknown as Storage;
}

function oneResult(customId: string, outputs = 1): () => AsyncIterable<BatchResult> {
  return async function* () {
    const stored = Array.from({ length: outputs }, (_, i) => ({ key: `out/${i}.png`, contentType: 'image/png', sizeBytes: 4 }));
    yield { line: { line: 1, customId, jobId: 'job_1', status: 'completed', outputs: [], error: null, costMicroCents: 1 }, stored: stored as BatchResult['stored'] };
  };
}

/** Settles within `ms`, or says it hangs. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);
}

describe('archive names', () => {
  it.each([
    ['C:x', 'C_x.png'],
    ['c:', 'c_.png'],
    ['../../etc/passwd', '___.._etc_passwd.png'],
    ['..', '__.png'],
    ['a/b\\c', 'a_b_c.png'],
    ['tab\there\u007fdel\u0085nel\u009fend', 'tab_here_del_nel_end.png'],
    ['what?<>|*"', 'what______.png'],
    ['plain-name_1', 'plain-name_1.png'],
  ])('names %j as %j', (customId, name) => {
    expect(archiveName(customId, 0, 1, 'image/png')).toBe(name);
  });

  it('streams a whole archive for an item whose customId is C:x', async () => {
    const res = new CountingResponse();
    const storage = { outputsBucket: 'outputs', getStream: async () => Readable.from([Buffer.from('PNG!')]) } as unknown as Storage;
    const done = streamArchive(res as unknown as Response, 'bat_1', oneResult('C:x'), storage, new AbortController().signal);
    expect(await within(done, 5000)).toBeUndefined();
    expect(res.writableFinished).toBe(true);
  });
});

describe('an abandoned download', () => {
  it('stops reading the output and returns once the client leaves; the storage stream is destroyed', async () => {
    const res = new StalledResponse();
    const opened: Readable[] = [];
    const departure = new AbortController();
    const done = streamArchive(res as unknown as Response, 'bat_1', oneResult('item-1'), endlessObject(opened), departure.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(opened).toHaveLength(1);
    departure.abort();
    expect(await within(done, 2000)).toBeUndefined();
    expect(opened[0]!.destroyed).toBe(true);
  });

  it('cuts the response and destroys the storage stream when the results fail mid-way', async () => {
    const res = new CountingResponse();
    const opened: Readable[] = [];
    const storage = {
      outputsBucket: 'outputs',
      async getStream() {
        const body = Readable.from([Buffer.from('PNG!')]);
        opened.push(body);
        return body;
      },
    } as unknown as Storage;
    const failing = async function* (): AsyncIterable<BatchResult> {
      yield* oneResult('item-1')();
      throw new Error('database gone');
    };
    const done = streamArchive(res as unknown as Response, 'bat_1', failing, storage, new AbortController().signal).then(
      () => 'returned',
      (err: Error) => err.message,
    );
    expect(await within(done, 2000)).toBe('database gone');
    expect(res.destroyed).toBe(true);
  });

  it('results: a wait for drain ends when the client leaves, and the reading of results stops', async () => {
    const res = new StalledResponse();
    const departure = new AbortController();
    let finalised = false;
    const results = async function* (): AsyncIterable<BatchResult> {
      try {
        for (let n = 1; ; n++) yield { line: { line: n, customId: `item-${n}-${'x'.repeat(500)}`, jobId: null, status: 'queued', outputs: [], error: null, costMicroCents: 0 }, stored: [] };
      } finally {
        finalised = true;
      }
    };
    const done = streamResults(res as unknown as Response, results(), departure.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    departure.abort();
    expect(await within(done, 2000)).toBeUndefined();
    expect(finalised).toBe(true);
  });
});
