import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { abortError } from '../abort';
import { createInputFileReader, inputFileFailure } from '../inputFileReader';
import type { InputFileReader } from '../types';

export const INPUT_IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/** Largest input image the built-in provider reads: the 10 MB image upload limit. */
export const MAX_INPUT_IMAGE_BYTES = 10 * 1024 * 1024;
const INPUT_FETCH_TIMEOUT_MS = 30_000;

/** Public addresses only, no uploads of ours: for an adapter built without the worker's storage. */
export function defaultInputReader(): InputFileReader {
  return createInputFileReader({ allowPrivate: false, maxBytes: MAX_INPUT_IMAGE_BYTES, fetchTimeoutMs: INPUT_FETCH_TIMEOUT_MS });
}

/**
 * Reads an input image (an upload of ours, or a URL through the address guard) into `workDir` and checks that it
 * is an image that decodes. Unreachable or 5xx sources are retryable; anything else is not.
 */
export async function fetchInputImage(url: string, workDir: string, name: string, signal: AbortSignal, readInput: InputFileReader): Promise<string> {
  let file: { data: Buffer; contentType: string };
  try {
    file = await readInput(url).read(signal);
  } catch (error) {
    if (signal.aborted) throw abortError(signal);
    throw error;
  }
  if (!INPUT_IMAGE_TYPES.includes(file.contentType)) {
    throw inputFileFailure(url, false, new Error(`content type "${file.contentType}" is not an image type`));
  }
  try {
    const meta = await sharp(file.data, { animated: false }).metadata();
    if (!meta.width || !meta.height) throw new Error('no dimensions');
  } catch (error) {
    throw inputFileFailure(url, false, error);
  }
  const target = path.join(workDir, name);
  await writeFile(target, file.data);
  return target;
}
