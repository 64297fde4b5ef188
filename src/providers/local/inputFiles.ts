import path from 'node:path';
import sharp from 'sharp';
import { abortError } from '../abort';
import { FetchFileError, fetchToFile } from '../fetchFile';
import { ProviderError } from '../types';

export const INPUT_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

export interface InputFetchOptions {
  /** Largest input image accepted, in bytes (default: the 10 MB image upload limit). */
  maxInputImageBytes: number;
  fetchTimeoutMs: number;
  fetchImpl?: typeof fetch;
}

export const DEFAULT_INPUT_FETCH_OPTIONS: InputFetchOptions = {
  maxInputImageBytes: 10 * 1024 * 1024,
  fetchTimeoutMs: 30_000,
};

/**
 * Downloads an input image (following redirects, within the size cap and allowed types) into
 * `workDir` and checks that it decodes. Unreachable or 5xx sources are retryable; 4xx, wrong type,
 * too large or undecodable are not.
 */
export async function fetchInputImage(
  url: string,
  workDir: string,
  name: string,
  signal: AbortSignal,
  options: InputFetchOptions,
): Promise<string> {
  const target = path.join(workDir, name);
  try {
    await fetchToFile(url, target, {
      signal,
      maxBytes: options.maxInputImageBytes,
      allowedContentTypes: INPUT_IMAGE_TYPES,
      timeoutMs: options.fetchTimeoutMs,
      fetchImpl: options.fetchImpl,
    });
  } catch (error) {
    throw classifyInputFetchError(error, url, signal);
  }
  try {
    const meta = await sharp(target, { animated: false }).metadata();
    if (!meta.width || !meta.height) throw new Error('no dimensions');
  } catch (error) {
    throw new ProviderError('INPUT_FETCH_FAILED', `input image ${url} is not a decodable image`, { retryable: false, cause: error });
  }
  return target;
}

function classifyInputFetchError(error: unknown, url: string, signal: AbortSignal): Error {
  if (signal.aborted) return abortError(signal);
  if (!(error instanceof FetchFileError)) {
    return new ProviderError('INPUT_FETCH_FAILED', `input image ${url} could not be fetched`, { retryable: true, cause: error });
  }
  const retryable =
    error.kind === 'network' ||
    error.kind === 'timeout' ||
    (error.kind === 'http-status' && (error.status === undefined || error.status >= 500 || error.status === 408 || error.status === 429));
  return new ProviderError('INPUT_FETCH_FAILED', `input image: ${error.message}`, { retryable, cause: error });
}
