import type { Upload } from '@prisma/client';
import type { Storage } from '../storage/storage';
import type { FileReferenceDeps } from './deps';

export type UploadStatus = 'awaiting_upload' | 'uploaded' | 'expired';

export interface InspectedUpload {
  status: UploadStatus;
  sizeBytes: number | null;
  /** Content type the storage recorded for the object, when there is one. */
  storedContentType: string | null;
  /** Set when an object over `maxSizeBytes` was found and deleted during this inspection. */
  rejectedSizeBytes?: number;
}

export function isPastExpiry(upload: Pick<Upload, 'status' | 'expiresAt'>, at: Date): boolean {
  return upload.status === 'expired' || at.getTime() >= upload.expiresAt.getTime();
}

/** Whether the row already records this very object (its size and ETag) as uploaded: nothing to inspect. */
export function recordsObject(upload: Pick<Upload, 'status' | 'sizeBytes' | 'objectEtag'>, object: { size: number; etag: string }): boolean {
  return upload.status === 'uploaded' && upload.sizeBytes === BigInt(object.size) && upload.objectEtag === object.etag;
}

/**
 * The upload's real state, read from the storage rather than trusted from the row: the row is brought up to date
 * (uploaded with the object's size and ETag), and an object over the size limit is deleted, since a presigned PUT
 * cannot cap the size. A PUT may replace the object any time in its window, so every use looks at the object as it
 * is now. An expired row is never revived.
 */
export async function inspectUpload(
  deps: Pick<FileReferenceDeps, 'prisma' | 'storage'>,
  upload: Upload,
  at: Date,
): Promise<InspectedUpload> {
  if (isPastExpiry(upload, at)) return { status: 'expired', sizeBytes: null, storedContentType: null };

  const storage: Storage = deps.storage;
  const object = await storage.stat(storage.uploadsBucket, upload.objectKey);
  const notExpired = { id: upload.id, status: { not: 'expired' as const } };

  if (object && object.size > upload.maxSizeBytes) {
    // The row first: it never says uploaded for an object that is gone (a failed delete is retried next time).
    await deps.prisma.upload.updateMany({
      where: notExpired,
      data: { status: 'awaiting_upload', sizeBytes: null, objectEtag: null, uploadedAt: null },
    });
    await storage.remove(storage.uploadsBucket, upload.objectKey);
    return { status: 'awaiting_upload', sizeBytes: null, storedContentType: null, rejectedSizeBytes: object.size };
  }
  if (!object) {
    if (upload.status === 'uploaded') {
      await deps.prisma.upload.updateMany({
        where: notExpired,
        data: { status: 'awaiting_upload', sizeBytes: null, objectEtag: null, uploadedAt: null },
      });
    }
    return { status: 'awaiting_upload', sizeBytes: null, storedContentType: null };
  }
  if (!recordsObject(upload, object)) {
    // A replaced object counts as uploaded now; a row from before ETags were recorded keeps its time.
    const replaced = upload.objectEtag !== null && upload.objectEtag !== object.etag;
    await deps.prisma.upload.updateMany({
      where: notExpired,
      data: { status: 'uploaded', sizeBytes: BigInt(object.size), objectEtag: object.etag, uploadedAt: replaced ? at : (upload.uploadedAt ?? at) },
    });
  }
  return { status: 'uploaded', sizeBytes: object.size, storedContentType: object.contentType };
}
