import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { once } from 'node:events';
import { BlockedUrlError, guardedFetch } from '../net/guardedFetch';
import { withTimeout } from './abort';

/**
 * Why a download failed, so each caller can classify it in its own terms. `blocked`: the address guard refused the
 * URL or a redirect (a private or metadata address, too many redirects), before connecting to it.
 */
export type FetchFailureKind = 'http-status' | 'network' | 'timeout' | 'aborted' | 'too-large' | 'content-type' | 'blocked';

export class FetchFileError extends Error {
  constructor(
    readonly kind: FetchFailureKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FetchFileError';
  }
}

export interface FetchFileOptions {
  signal: AbortSignal;
  maxBytes: number;
  /** Content types accepted, compared without parameters (`image/png; charset=x` → `image/png`). */
  allowedContentTypes: readonly string[];
  timeoutMs: number;
  /** Sent to the URL's own origin only (they may carry a credential), never across a redirect to another. */
  headers?: Record<string, string>;
  /** Private and loopback addresses may be fetched (development and tests); metadata addresses never. */
  allowPrivate: boolean;
  /** Origins an operator configured (a provider's own API), whose addresses may be private. */
  trustedOrigins?: readonly string[];
}

export interface FetchedFile {
  path: string;
  contentType: string;
  sizeBytes: number;
}

function mediaType(header: string | null): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Downloads `url` into `destination` through the address guard (src/net/guardedFetch.ts: every redirect checked, the
 * connection pinned to the checked address), refusing bodies over `maxBytes` and content types outside the allow
 * list. The partial file is removed on failure.
 */
export async function fetchToFile(url: string, destination: string, options: FetchFileOptions): Promise<FetchedFile> {
  const signal = withTimeout(options.signal, options.timeoutMs);
  let response: Response;
  try {
    response = await guardedFetch(url, {
      allowPrivate: options.allowPrivate,
      trustedOrigins: options.trustedOrigins,
      signal,
      headers: options.headers,
      what: 'output',
    });
  } catch (error) {
    throw classifyThrown(error, options.signal, url);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new FetchFileError('http-status', `GET ${url} answered ${response.status}`, response.status);
  }
  const contentType = mediaType(response.headers.get('content-type'));
  if (!options.allowedContentTypes.includes(contentType)) {
    await response.body?.cancel().catch(() => undefined);
    throw new FetchFileError('content-type', `GET ${url} returned content type "${contentType || 'none'}"`);
  }
  const declaredLength = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declaredLength) && declaredLength > options.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new FetchFileError('too-large', `GET ${url} is ${declaredLength} bytes, over the ${options.maxBytes} byte limit`);
  }
  if (!response.body) throw new FetchFileError('network', `GET ${url} returned no body`);

  const out = createWriteStream(destination);
  let sizeBytes = 0;
  try {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      sizeBytes += value.byteLength;
      if (sizeBytes > options.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new FetchFileError('too-large', `GET ${url} is over the ${options.maxBytes} byte limit`);
      }
      if (!out.write(value)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
  } catch (error) {
    out.destroy();
    await unlink(destination).catch(() => undefined);
    throw error instanceof FetchFileError ? error : classifyThrown(error, options.signal, url);
  }
  return { path: destination, contentType, sizeBytes };
}

function classifyThrown(error: unknown, callerSignal: AbortSignal, url: string): FetchFileError {
  if (callerSignal.aborted) return new FetchFileError('aborted', `GET ${url} aborted`, undefined, { cause: error });
  if (error instanceof BlockedUrlError) return new FetchFileError('blocked', `GET ${url} ${error.message}`, undefined, { cause: error });
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new FetchFileError('timeout', `GET ${url} timed out`, undefined, { cause: error });
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new FetchFileError('network', `GET ${url} failed: ${detail}`, undefined, { cause: error });
}
