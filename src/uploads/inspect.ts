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

/**
 * The upload's real state, read from the storage rather than trusted from the row: the row is brought up to date
 * (uploaded with its size), and an object over the size limit is deleted, since a presigned PUT cannot cap the size.
 * An expired row is never revived.
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
    await storage.remove(storage.uploadsBucket, upload.objectKey);
    await deps.prisma.upload.updateMany({
      where: notExpired,
      data: { status: 'awaiting_upload', sizeBytes: null, uploadedAt: null },
    });
    return { status: 'awaiting_upload', sizeBytes: null, storedContentType: null, rejectedSizeBytes: object.size };
  }
  if (!object) {
    if (upload.status === 'uploaded') {
      await deps.prisma.upload.updateMany({
        where: notExpired,
        data: { status: 'awaiting_upload', sizeBytes: null, uploadedAt: null },
      });
    }
    return { status: 'awaiting_upload', sizeBytes: null, storedContentType: null };
  }
  if (upload.status !== 'uploaded' || upload.sizeBytes !== BigInt(object.size)) {
    await deps.prisma.upload.updateMany({
      where: notExpired,
      data: { status: 'uploaded', sizeBytes: BigInt(object.size), uploadedAt: upload.uploadedAt ?? at },
    });
  }
  return { status: 'uploaded', sizeBytes: object.size, storedContentType: object.contentType };
}
