import type { UploadContentType } from './types';

/** What `upload()` takes: a file path (Node), a Blob or File (browser or Node), or bytes. */
export type UploadSource = string | Blob | Uint8Array | ArrayBuffer;

export interface UploadFile {
  body: Blob;
  filename: string;
  contentType: UploadContentType;
}

const CONTENT_TYPES_BY_EXTENSION: Record<string, UploadContentType> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  jsonl: 'application/jsonl',
};

/** The content type a file name's extension stands for, among those the API accepts. */
export function contentTypeFor(filename: string): UploadContentType | undefined {
  const extension = filename.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  return extension === undefined ? undefined : CONTENT_TYPES_BY_EXTENSION[extension];
}

/** The bytes of `source` as a Blob: a file path is read (Node). */
export async function readSourceBytes(source: UploadSource): Promise<Blob> {
  if (typeof source === 'string') {
    const { readFile } = await import('node:fs/promises');
    return new Blob([await readFile(source)]);
  }
  return source instanceof Blob ? source : new Blob([source as unknown as ArrayBuffer]);
}

/** The file name `source` carries (a path's last segment, a File's name), else `fallback`. */
export function fileNameOf(source: UploadSource, fallback: string): string {
  if (typeof source === 'string') return source.split(/[\\/]/).pop() || fallback;
  if (source instanceof Blob && 'name' in source && typeof source.name === 'string' && source.name) return source.name;
  return fallback;
}

/** Reads `source` into a Blob and settles its name and content type (given, from the File, or from the extension). */
export async function readUploadSource(
  source: UploadSource,
  options: { filename?: string; contentType?: UploadContentType },
): Promise<UploadFile> {
  let body: Blob;
  let name = options.filename;
  if (typeof source === 'string') {
    const { readFile } = await import('node:fs/promises');
    const { basename } = await import('node:path');
    body = new Blob([await readFile(source)]);
    name ??= basename(source);
  } else if (source instanceof Blob) {
    body = source;
    if (!name && 'name' in source && typeof source.name === 'string' && source.name) name = source.name;
  } else {
    body = new Blob([source as unknown as ArrayBuffer]);
  }
  if (!name) throw new TypeError('upload(): give a filename for bytes without one');
  const contentType = options.contentType ?? (body.type ? (body.type as UploadContentType) : contentTypeFor(name));
  if (!contentType) throw new TypeError(`upload(): cannot tell the content type of "${name}"; give contentType`);
  return { body, filename: name, contentType };
}
