/** Content types accepted for uploads and the size limit of each kind. Pure: safe to import from workflows. */
export const UPLOAD_CONTENT_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'video/mp4',
  'video/webm',
  'audio/mpeg',
  'audio/wav',
  // A batch's lines (POST /v1/batches with fileId), not a model input.
  'application/jsonl',
] as const;

export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];

export type MediaKind = 'image' | 'video' | 'audio';

export const MEDIA_KINDS: readonly MediaKind[] = ['image', 'video', 'audio'];

/** Upload limits use decimal megabytes: 1 MB = 1,000,000 bytes. */
export const BYTES_PER_MB = 1_000_000;

export const MAX_UPLOAD_BYTES: Readonly<Record<MediaKind, number>> = {
  image: 10 * BYTES_PER_MB,
  video: 100 * BYTES_PER_MB,
  audio: 50 * BYTES_PER_MB,
};

export function isUploadContentType(value: unknown): value is UploadContentType {
  return typeof value === 'string' && (UPLOAD_CONTENT_TYPES as readonly string[]).includes(value);
}

/** The kind of a media type, ignoring parameters (`image/png; x=y` → image); null for anything else. */
export function mediaKindOf(contentType: string | null | undefined): MediaKind | null {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const major = type.split('/')[0];
  return (MEDIA_KINDS as readonly string[]).includes(major) && type.includes('/') ? (major as MediaKind) : null;
}

/** The largest batch file an upload may hold (a batch's own limit, batches.maxFileBytes, may be lower). */
export const MAX_BATCH_FILE_UPLOAD_BYTES = 100 * BYTES_PER_MB;

export function maxUploadBytes(contentType: UploadContentType): number {
  const kind = mediaKindOf(contentType);
  return kind ? MAX_UPLOAD_BYTES[kind] : MAX_BATCH_FILE_UPLOAD_BYTES;
}

export function describeKind(kind: MediaKind): string {
  return kind === 'audio' ? 'an audio file' : kind === 'image' ? 'an image' : 'a video';
}
