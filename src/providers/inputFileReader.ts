/**
 * Reads the files a job input refers to: our own uploads straight from MinIO, any other URL through the address
 * guard (every hop checked, the connection pinned to the checked address), within a size limit. Whatever went wrong,
 * the job's error says only that the file could not be fetched: the detail (status, content type, refused address)
 * would let a client probe what answers where, so it stays in `cause`, for the logs.
 */
import type { PrismaClient } from '@prisma/client';
import { guardedFetch } from '../net/guardedFetch';
import type { Storage } from '../storage/storage';
import { inputFileMessage } from '../shared/jobFailures';
import { matchFileUrl } from '../uploads/fileUrl';
import { findDownload } from '../uploads/service';
import { withTimeout } from './abort';
import { ProviderError, type InputFileReader } from './types';

export interface InputFileDeps {
  /** Our uploads, read from MinIO; without them every URL is fetched. */
  uploads?: { prisma: Pick<PrismaClient, 'upload'>; storage: Storage; publicBaseUrl: string };
  /** Fetch from private and loopback addresses too (development and tests). */
  allowPrivate: boolean;
  /** Largest input file read, in bytes. */
  maxBytes: number;
  fetchTimeoutMs: number;
}

/** The one message a client sees for an input file that could not be read; retryable or not. */
export function inputFileFailure(url: string, retryable: boolean, cause: unknown): ProviderError {
  return new ProviderError('INPUT_FETCH_FAILED', inputFileMessage(url, 'unreadable'), { retryable, cause });
}

async function readAll(stream: AsyncIterable<Buffer | Uint8Array>, maxBytes: number, url: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > maxBytes) throw inputFileFailure(url, false, new Error(`over the ${maxBytes}-byte limit`));
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/**
 * The file name the URL ends in, decoded. A name whose percent-encoding does not decode (`%C3`, `%E0%A4%A`) is the
 * client's mistake and stays one on every attempt: refused before any connection, not retried.
 */
function filenameOf(url: string, fallback: string): string {
  try {
    const last = new URL(url).pathname.split('/').pop();
    return last ? decodeURIComponent(last) : fallback;
  } catch (error) {
    throw new ProviderError('INPUT_FETCH_FAILED', inputFileMessage(url, 'malformed'), { retryable: false, cause: error });
  }
}

export function createInputFileReader(deps: InputFileDeps): InputFileReader {
  return (url) => {
    const uploads = deps.uploads;
    const match = uploads ? matchFileUrl(uploads.publicBaseUrl, url) : null;
    if (uploads && match?.kind === 'ours') {
      return {
        url,
        own: true,
        async read() {
          const target = await findDownload(uploads, match.fileId);
          if (!target) throw inputFileFailure(url, false, new Error('the upload no longer exists or has expired'));
          const stream = await uploads.storage.getStream(target.bucket, target.key);
          if (!stream) throw inputFileFailure(url, false, new Error('the upload no longer exists'));
          const limit = Math.min(deps.maxBytes, target.maxSizeBytes);
          return { data: await readAll(stream, limit, url), contentType: target.contentType, filename: target.filename };
        },
      };
    }
    return {
      url,
      own: false,
      async read(signal) {
        const filename = filenameOf(url, 'input');
        let response: Response;
        try {
          response = await guardedFetch(url, { allowPrivate: deps.allowPrivate, signal: withTimeout(signal, deps.fetchTimeoutMs) });
        } catch (error) {
          if (signal.aborted) throw error;
          const refused = error instanceof Error && error.name === 'BlockedUrlError';
          throw inputFileFailure(url, !refused, error);
        }
        if (!response.ok || !response.body) {
          await response.body?.cancel().catch(() => undefined);
          const retryable = response.status >= 500 || response.status === 429 || response.status === 408;
          throw inputFileFailure(url, retryable, new Error(`answered ${response.status}`));
        }
        const contentType = (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0].trim().toLowerCase();
        const data = await readAll(response.body as unknown as AsyncIterable<Uint8Array>, deps.maxBytes, url);
        return { data, contentType, filename };
      },
    };
  };
}
