import { isFileId } from '../shared/fileIds';

const FILES_PATH = '/v1/files/';

export function fileUrlFor(publicBaseUrl: string, fileId: string): string {
  return `${publicBaseUrl.replace(/\/$/, '')}${FILES_PATH}${fileId}`;
}

export type FileUrlMatch = { kind: 'ours'; fileId: string } | { kind: 'ours-invalid' } | { kind: 'other' };

/**
 * Whether `value` is one of our file URLs. A URL on our files path whose id is malformed is still ours
 * (`ours-invalid`), so it is reported instead of being treated as an external link.
 */
export function matchFileUrl(publicBaseUrl: string, value: string): FileUrlMatch {
  let url: URL;
  let base: URL;
  try {
    url = new URL(value);
    base = new URL(publicBaseUrl);
  } catch {
    return { kind: 'other' };
  }
  const prefix = `${base.pathname.replace(/\/$/, '')}${FILES_PATH}`;
  if (url.origin !== base.origin || !url.pathname.startsWith(prefix)) return { kind: 'other' };
  const fileId = url.pathname.slice(prefix.length);
  if (!isFileId(fileId) || url.search || url.hash) return { kind: 'ours-invalid' };
  return { kind: 'ours', fileId };
}
