import type { Genmedia, PresignedUpload, UploadContentType } from '@genmedia/client';

/**
 * Presigns through the SDK (declaring the size, so the storage refuses any other length), then PUTs with
 * XMLHttpRequest: fetch cannot report upload progress in browsers.
 */
export async function uploadWithProgress(
  client: Genmedia,
  file: File,
  onProgress: (fraction: number) => void,
  signal: AbortSignal,
  contentType = file.type as UploadContentType,
): Promise<PresignedUpload> {
  const presigned = await client.presignUpload(file.name, contentType, { size: file.size, signal });
  await new Promise<void>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', presigned.uploadUrl);
    xhr.setRequestHeader('Content-Type', contentType);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => (xhr.status >= 200 && xhr.status < 300 ? resolve() : reject(new Error(`the storage refused the file (${xhr.status})`)));
    xhr.onerror = () => reject(new Error('the upload was interrupted'));
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'));
    signal.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(file);
  });
  onProgress(1);
  return presigned;
}
