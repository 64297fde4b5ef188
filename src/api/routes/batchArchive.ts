/**
 * GET /v1/batches/{batchId}/archive: a ZIP written as it is read. yazl builds the archive entry by entry as a stream
 * (no temporary file, no buffering of a whole output): each completed item's outputs are piped from storage in line
 * order, named by customId, then `results.jsonl`, written from a second reading of the results as they are read, so
 * neither an output nor the results file is ever held whole in memory. A client that leaves stops the reading at once
 * (the storage stream being read is destroyed, and with it its connection); an error after the first byte cuts the
 * response, so the client sees a broken download, never one that hangs.
 */
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Response } from 'express';
import { ZipFile } from 'yazl';
import type { BatchResult } from '../../batches/results';
import { extensionFor } from '../../lib/mediaTypes';
import type { Storage } from '../../storage/storage';

/**
 * What may not stand in an entry's name: C0 controls, DEL and C1 controls, path separators, the drive colon (`C:x`
 * is an absolute path to yazl and to Windows), and the characters Windows refuses in a file name.
 */
const UNSAFE_CHARACTERS = new Set('/\\:<>"|?*');

function unsafeInName(c: string): boolean {
  const code = c.codePointAt(0)!;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || UNSAFE_CHARACTERS.has(c);
}

/**
 * A customId as a file name of the archive's root: every unsafe character becomes `_`, and so do leading dots (no
 * `..`, no hidden file), so no entry leaves the root and the zip library never refuses one.
 */
export function archiveName(customId: string, index: number, count: number, contentType: string): string {
  const safe = [...customId]
    .map((c) => (unsafeInName(c) ? '_' : c))
    .join('')
    .replace(/^\.+/, (dots) => '_'.repeat(dots.length));
  const ext = extensionFor(contentType);
  return `${safe}${count > 1 ? `-${index + 1}` : ''}${ext ? `.${ext}` : ''}`;
}

/** The results as JSONL text, one line per result, produced as they are read. */
async function* jsonLines(results: AsyncIterable<BatchResult>): AsyncGenerator<Buffer> {
  for await (const { line } of results) yield Buffer.from(`${JSON.stringify(line)}\n`);
}

/** Names as given, except a second use of one (two customIds that read the same once made safe) gets its line. */
function uniqueNames() {
  const used = new Set<string>();
  return (name: string, line: number): string => {
    const unique = used.has(name) ? `line-${line}-${name}` : name;
    used.add(unique);
    return unique;
  };
}

/**
 * `readResults` is called twice: once for the outputs, once for `results.jsonl`; each reading goes page by page.
 * `departure` fires when the client leaves: the open storage stream and the readings stop, and this returns.
 * Throws what went wrong after it cut the response.
 */
export async function streamArchive(
  res: Response,
  batchId: string,
  readResults: () => AsyncIterable<BatchResult>,
  storage: Storage,
  departure: AbortSignal,
): Promise<void> {
  const zip = new ZipFile();
  /** The stream yazl is reading now: destroyed when the client leaves or anything fails. */
  let reading: Readable | null = null;
  const stopReading = () => reading?.destroy();
  departure.addEventListener('abort', stopReading, { once: true });
  const name = uniqueNames();
  let zipFailed: Error | null = null;
  zip.on('error', (err: Error) => {
    zipFailed = err;
    stopReading();
  });
  try {
    res.status(200);
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', `attachment; filename="${batchId}.zip"`);
    zip.outputStream.pipe(res);
    for await (const { line, stored } of readResults()) {
      if (departure.aborted) return;
      for (const [index, output] of stored.entries()) {
        const body = await storage.getStream(storage.outputsBucket, output.key);
        if (!body) continue;
        reading = body;
        if (departure.aborted) return;
        zip.addReadStream(body, name(archiveName(line.customId, index, stored.length, output.contentType), line.line), { compress: false });
        // One output at a time: the next object is opened once this one has been written out (or the client left).
        await finished(body).catch((err: unknown) => {
          if (!departure.aborted) throw zipFailed ?? err;
        });
        if (departure.aborted) return;
        reading = null;
      }
    }
    reading = Readable.from(jsonLines(readResults()), { objectMode: false });
    zip.addReadStream(reading, 'results.jsonl');
    zip.end();
    await finished(res).catch((err: unknown) => {
      if (!departure.aborted) throw zipFailed ?? err;
    });
  } catch (err) {
    // Half a ZIP is no answer: the connection is cut so the client sees the download fail.
    res.destroy();
    throw err;
  } finally {
    departure.removeEventListener('abort', stopReading);
    stopReading();
    if (departure.aborted || !res.writableFinished) {
      zip.outputStream.unpipe(res);
      (zip.outputStream as Readable).destroy();
    }
  }
}
