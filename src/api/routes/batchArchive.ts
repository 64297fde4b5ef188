/**
 * GET /v1/batches/{batchId}/archive: a ZIP written as it is read. yazl builds the archive entry by entry as a stream
 * (no temporary file, no buffering of a whole output): each completed item's outputs are piped from storage in line
 * order, named by customId, then `results.jsonl`, written from a second reading of the results as they are read, so
 * neither an output nor the results file is ever held whole in memory.
 */
import { Readable } from 'node:stream';
import type { Response } from 'express';
import { ZipFile } from 'yazl';
import type { BatchResult } from '../../batches/results';
import { extensionFor } from '../../lib/mediaTypes';
import type { Storage } from '../../storage/storage';

/** A customId as a file name: path separators and control characters become `_`, so no entry leaves the archive's root. */
export function archiveName(customId: string, index: number, count: number, contentType: string): string {
  const safe = [...customId].map((c) => (c === '/' || c === '\\' || c.charCodeAt(0) < 0x20 ? '_' : c)).join('').replace(/^\.+/, '_');
  const ext = extensionFor(contentType);
  return `${safe}${count > 1 ? `-${index + 1}` : ''}${ext ? `.${ext}` : ''}`;
}

/** The results as JSONL text, one line per result, produced as they are read. */
async function* jsonLines(results: AsyncIterable<BatchResult>): AsyncGenerator<Buffer> {
  for await (const { line } of results) yield Buffer.from(`${JSON.stringify(line)}\n`);
}

/** `readResults` is called twice: once for the outputs, once for `results.jsonl`; each reading goes page by page. */
export async function streamArchive(res: Response, batchId: string, readResults: () => AsyncIterable<BatchResult>, storage: Storage): Promise<void> {
  const zip = new ZipFile();
  res.status(200);
  res.setHeader('Content-Type', 'application/zip');
  res.setHeader('Content-Disposition', `attachment; filename="${batchId}.zip"`);
  zip.outputStream.pipe(res);
  for await (const { line, stored } of readResults()) {
    for (const [index, output] of stored.entries()) {
      const body = await storage.getStream(storage.outputsBucket, output.key);
      if (!body) continue;
      zip.addReadStream(body, archiveName(line.customId, index, stored.length, output.contentType), { compress: false });
      // One output at a time: the next object is opened once this one has been written out.
      await new Promise<void>((resolve, reject) => {
        body.once('end', resolve);
        body.once('error', reject);
      });
    }
  }
  zip.addReadStream(Readable.from(jsonLines(readResults()), { objectMode: false }), 'results.jsonl');
  zip.end();
  await new Promise<void>((resolve) => res.once('finish', resolve));
}
