/**
 * Reads the files a job input refers to, for adapters that hand bytes to their upstream: our own uploads
 * straight from MinIO, other URLs over HTTPS within the upload size limits.
 */
import type { PrismaClient } from '@prisma/client';
import type { Storage } from '../../storage/storage';
import { matchFileUrl } from '../../uploads/fileUrl';
import { findDownload } from '../../uploads/service';
import { withTimeout } from '../abort';
import { ProviderError } from '../types';
import type { InputFile } from './types';

export interface InputFileDeps {
  prisma: Pick<PrismaClient, 'upload'>;
  storage: Storage;
  publicBaseUrl: string;
  /** Largest input file read, in bytes. */
  maxBytes: number;
  fetchTimeoutMs: number;
}

function fetchFailed(url: string, detail: string, retryable: boolean, cause?: unknown): ProviderError {
  return new ProviderError('INPUT_FETCH_FAILED', `input file ${url}: ${detail}`, { retryable, cause });
}

async function readAll(stream: AsyncIterable<Buffer | Uint8Array>, maxBytes: number, url: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > maxBytes) throw fetchFailed(url, `over the ${maxBytes}-byte limit`, false);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

function filenameOf(url: string, fallback: string): string {
  const last = new URL(url).pathname.split('/').pop();
  return last ? decodeURIComponent(last) : fallback;
}

export function createInputFileReader(deps: InputFileDeps): (url: string) => InputFile {
  return (url) => {
    const match = matchFileUrl(deps.publicBaseUrl, url);
    if (match.kind === 'ours') {
      return {
        url,
        own: true,
        async read() {
          const target = await findDownload(deps, match.fileId);
          if (!target) throw fetchFailed(url, 'the upload no longer exists or has expired', false);
          const stream = await deps.storage.getStream(target.bucket, target.key);
          if (!stream) throw fetchFailed(url, 'the upload no longer exists', false);
          return { data: await readAll(stream, deps.maxBytes, url), contentType: target.contentType, filename: target.filename };
        },
      };
    }
    return {
      url,
      own: false,
      async read(signal) {
        let response: Response;
        try {
          response = await fetch(url, { redirect: 'follow', signal: withTimeout(signal, deps.fetchTimeoutMs) });
        } catch (error) {
          if (signal.aborted) throw error;
          throw fetchFailed(url, 'could not be fetched', true, error);
        }
        if (!response.ok || !response.body) {
          await response.body?.cancel().catch(() => undefined);
          throw fetchFailed(url, `answered ${response.status}`, response.status >= 500 || response.status === 429);
        }
        const contentType = (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0].trim().toLowerCase();
        const data = await readAll(response.body as unknown as AsyncIterable<Uint8Array>, deps.maxBytes, url);
        return { data, contentType, filename: filenameOf(url, 'input') };
      },
    };
  };
}
