/**
 * The batch archive's results.jsonl is written as the results are read a second time, never gathered first: by the
 * time the last result is read, most of the file has already gone out to the client.
 */
import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import type { Response } from 'express';
import { describe, expect, it } from 'vitest';
import { streamArchive } from '../../../src/api/routes/batchArchive';
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

    await streamArchive(res as unknown as Response, 'bat_1', readResults, storage);

    expect(res.statusCode).toBe(200);
    expect(readings).toEqual([LINES, LINES]);
    // About 1.2 MB of lines: all but the last few buffers of it are out before the last line is read.
    expect(sentBeforeLastLine - sentWhenSecondReadingBegan).toBeGreaterThan(600_000);
  });
});
