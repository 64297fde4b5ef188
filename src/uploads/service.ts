import type { Upload } from '@prisma/client';
import type { z } from 'zod';
import type { PresignedUploadSchema, UploadStatusSchema } from '../api/schemas/uploads';
import { ApiError } from '../shared/errors';
import { uploadWorkflowId } from '../shared/temporal';
import type { UploadExpiryInput } from './workflowTypes';
import { UPLOAD_EXPIRY_WORKFLOW } from './workflowTypes';
import { now, type UploadDeps } from './deps';
import { fileUrlFor } from './fileUrl';
import { newFileId, uploadObjectKey } from './ids';
import { inspectUpload, isPastExpiry } from './inspect';
import { maxUploadBytes, type UploadContentType } from './media';

// Answer shapes: the response schemas of src/api/schemas/uploads.ts.
export type PresignedUpload = z.infer<typeof PresignedUploadSchema>;
export type UploadStatusView = z.infer<typeof UploadStatusSchema>;

export interface DownloadTarget {
  bucket: string;
  key: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  expiresAt: Date;
}

/**
 * Creates the upload row, starts its expiry workflow and signs the PUT. The row exists before the workflow so the
 * workflow always finds something to expire; if the workflow cannot be started the row is removed again and no URL
 * is handed out, so no upload lives without its timer.
 */
export async function createPresignedUpload(
  deps: UploadDeps,
  accountId: string,
  request: { filename: string; contentType: UploadContentType },
): Promise<PresignedUpload> {
  const createdAt = now(deps);
  const { lifetimeSeconds, putWindowSeconds } = deps.config.uploads;
  const expiresAt = new Date(createdAt.getTime() + lifetimeSeconds * 1000);
  const fileId = newFileId();
  const objectKey = uploadObjectKey(accountId, fileId);
  const maxSize = maxUploadBytes(request.contentType);

  await deps.prisma.upload.create({
    data: {
      id: fileId,
      accountId,
      filename: request.filename,
      contentType: request.contentType,
      objectKey,
      maxSizeBytes: maxSize,
      createdAt,
      expiresAt,
    },
  });
  const input: UploadExpiryInput = { fileId, expiresAt: expiresAt.toISOString() };
  try {
    await deps.temporal.workflow.start(UPLOAD_EXPIRY_WORKFLOW, {
      workflowId: uploadWorkflowId(fileId),
      taskQueue: deps.config.temporal.jobsTaskQueue,
      args: [input],
    });
  } catch (error) {
    deps.logger?.warn({ err: error, fileId }, 'could not start the upload expiry workflow');
    await deps.prisma.upload.delete({ where: { id: fileId } }).catch(() => undefined);
    throw new ApiError('SERVICE_UNAVAILABLE', 'The upload could not be registered; please retry', undefined, {
      'Retry-After': '1',
    });
  }

  const storage = deps.storage;
  const uploadUrl = await storage.presignPut(
    storage.uploadsBucket,
    objectKey,
    request.contentType,
    Math.min(putWindowSeconds, lifetimeSeconds),
  );
  return {
    uploadUrl,
    fileUrl: fileUrlFor(deps.config.api.publicBaseUrl, fileId),
    fileId,
    expiresAt: expiresAt.toISOString(),
    maxSize,
  };
}

async function findOwnUpload(deps: Pick<UploadDeps, 'prisma'>, accountId: string, fileId: string): Promise<Upload> {
  const upload = await deps.prisma.upload.findUnique({ where: { id: fileId } });
  // Another account's upload is indistinguishable from a missing one.
  if (!upload || upload.accountId !== accountId) throw new ApiError('UPLOAD_NOT_FOUND', `Upload ${fileId} not found`);
  return upload;
}

export async function getUploadStatus(
  deps: Pick<UploadDeps, 'prisma' | 'storage' | 'config' | 'clock'>,
  accountId: string,
  fileId: string,
): Promise<UploadStatusView> {
  const upload = await findOwnUpload(deps, accountId, fileId);
  const state = await inspectUpload(deps, upload, now(deps));
  return {
    fileId: upload.id,
    filename: upload.filename,
    status: state.status,
    contentType: upload.contentType,
    size: state.status === 'uploaded' ? state.sizeBytes : null,
    maxSize: upload.maxSizeBytes,
    fileUrl: fileUrlFor(deps.config.api.publicBaseUrl, upload.id),
    createdAt: upload.createdAt.toISOString(),
    expiresAt: upload.expiresAt.toISOString(),
  };
}

/** Where the bytes of a live, uploaded file are; null when the file is unknown, not uploaded, too large or expired. */
export async function findDownload(
  deps: Pick<UploadDeps, 'prisma' | 'storage' | 'clock'>,
  fileId: string,
): Promise<DownloadTarget | null> {
  const upload = await deps.prisma.upload.findUnique({ where: { id: fileId } });
  const at = now(deps);
  if (!upload || isPastExpiry(upload, at)) return null;
  const state = await inspectUpload(deps, upload, at);
  if (state.status !== 'uploaded' || state.sizeBytes === null) return null;
  return {
    bucket: deps.storage.uploadsBucket,
    key: upload.objectKey,
    filename: upload.filename,
    contentType: state.storedContentType ?? upload.contentType,
    sizeBytes: state.sizeBytes,
    expiresAt: upload.expiresAt,
  };
}
