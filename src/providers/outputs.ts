import { stat } from 'node:fs/promises';
import sharp from 'sharp';
import { probeMedia } from './media/ffmpeg';
import { ProviderError, type GeneratedFile } from './types';

export const IMAGE_OUTPUT_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export const VIDEO_OUTPUT_TYPES = ['video/mp4', 'video/webm'] as const;
export const OUTPUT_CONTENT_TYPES: readonly string[] = [...IMAGE_OUTPUT_TYPES, ...VIDEO_OUTPUT_TYPES];

const SHARP_FORMAT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };

function badOutput(message: string, cause?: unknown): ProviderError {
  return new ProviderError('BAD_OUTPUT', message, { retryable: false, cause });
}

/**
 * Decodes an output file and returns the metadata the job record lists. Throws a
 * non-retryable BAD_OUTPUT when the file is empty, of an unexpected type or does not decode.
 */
export async function describeOutputFile(path: string, contentType: string, signal: AbortSignal): Promise<GeneratedFile> {
  const { size } = await stat(path).catch((error: unknown) => {
    throw badOutput(`output file ${path} is missing`, error);
  });
  if (size === 0) throw badOutput(`output file ${path} is empty`);

  const expectedFormat = SHARP_FORMAT[contentType];
  if (expectedFormat) {
    const meta = await sharp(path)
      .metadata()
      .catch((error: unknown) => {
        throw badOutput(`output image ${path} does not decode`, error);
      });
    if (meta.format !== expectedFormat || !meta.width || !meta.height) {
      throw badOutput(`output image ${path} is ${meta.format ?? 'unknown'}, expected ${expectedFormat}`);
    }
    return { path, contentType, sizeBytes: size, width: meta.width, height: meta.height };
  }

  if (contentType.startsWith('video/')) {
    const probe = await probeMedia(path, signal).catch((error: unknown) => {
      if (signal.aborted) throw error;
      throw badOutput(`output video ${path} does not decode`, error);
    });
    if (!probe.video || !probe.video.width || !Number.isFinite(probe.durationSeconds) || probe.durationSeconds <= 0) {
      throw badOutput(`output video ${path} has no playable video stream`);
    }
    return {
      path,
      contentType,
      sizeBytes: size,
      width: probe.video.width,
      height: probe.video.height,
      durationSeconds: Math.round(probe.durationSeconds * 1000) / 1000,
    };
  }
  throw badOutput(`output content type ${contentType} is not supported`);
}
