/**
 * GET /v1/batches/{batchId}/results, written as the results are read: one JSON line per item, waiting for the client
 * to take each buffer before the next page is read. A client that leaves stops the reading at once (a wait for
 * `drain` that would never come ends with it); an error after the first byte cuts the response.
 */
import { once } from 'node:events';
import type { Response } from 'express';
import type { BatchResult } from '../../batches/results';

export async function streamResults(res: Response, results: AsyncIterable<BatchResult>, departure: AbortSignal): Promise<void> {
  try {
    res.status(200).setHeader('Content-Type', 'application/jsonl; charset=utf-8');
    for await (const { line } of results) {
      if (departure.aborted) return;
      if (!res.write(`${JSON.stringify(line)}\n`)) {
        await once(res, 'drain', { signal: departure }).catch((err: unknown) => {
          if (!departure.aborted) throw err;
        });
      }
    }
    if (!departure.aborted) res.end();
  } catch (err) {
    res.destroy();
    throw err;
  }
}
