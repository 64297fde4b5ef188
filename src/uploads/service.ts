import type { PrismaClient, Upload } from '@prisma/client';
import type { z } from 'zod';
import type { PresignedUploadSchema, UploadStatusSchema } from '../contracts/http/uploads';
import { DomainError } from '../shared/errors';
import { uploadExpiryWorkflowContract, uploadWorkflowId, type UploadExpiryInput } from '../contracts/workflows/uploadExpiry';
import { startWorkflow } from '../temporal/workflows';
import { now, type FileReferenceDeps, type UploadDeps } from './deps';
import { fileUrlFor } from './fileUrl';
import { newFileId, uploadObjectKey } from './ids';
import { inspectUpload, isPastExpiry } from './inspect';
import { maxUploadBytes, type UploadContentType } from '../shared/media';

// Answer shapes: the response schemas of src/contracts/http/uploads.ts.
export type PresignedUpload = z.infer<typeof PresignedUploadSchema>;
export type UploadStatusView = z.infer<typeof UploadStatusSchema>;

export interface DownloadTarget {
  bucket: string;
  key: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  /** The most the file may hold: a later PUT may have replaced the object inspected, so reads stop here. */
  maxSizeBytes: number;
  expiresAt: Date;
}

/**
 * Creates the upload row and starts its expiry workflow. The row exists before the workflow so the workflow always
 * finds something to expire; if the workflow cannot be started the row is removed again, so no upload lives without
 * its timer.
 */
async function registerUpload(
  deps: UploadDeps,
  accountId: string,
  request: { filename: string; contentType: UploadContentType; size?: number },
  fileId = newFileId(),
): Promise<{ fileId: string; objectKey: string; expiresAt: Date; maxSize: number }> {
  const createdAt = now(deps);
  const { lifetimeSeconds } = deps.config.uploads;
  const expiresAt = new Date(createdAt.getTime() + lifetimeSeconds * 1000);
  const objectKey = uploadObjectKey(accountId, fileId);
  const limit = maxUploadBytes(request.contentType);
  if (request.size !== undefined && request.size > limit) {
    throw new DomainError('VALIDATION_ERROR', `size ${request.size} is over the ${limit}-byte limit for ${request.contentType}`, [
      { path: 'size', message: `must be at most ${limit}` },
    ]);
  }
  // A declared size is what the PUT must send, and the most the file may hold.
  const maxSize = request.size ?? limit;

  await deps.prisma.$transaction(async (tx) => {
    // Serialized per account, so concurrent presigns cannot together pass the caps.
    await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`;
    await checkOpenUploadCaps(tx, deps.config.uploads, accountId, maxSize, createdAt);
    await tx.upload.create({
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
  });
  const input: UploadExpiryInput = { fileId, expiresAt: expiresAt.toISOString() };
  try {
    await startWorkflow(deps.temporal, uploadExpiryWorkflowContract, {
      workflowId: uploadWorkflowId(fileId),
      taskQueue: deps.config.temporal.jobsTaskQueue,
      args: [input],
    });
  } catch (error) {
    deps.logger?.warn({ err: error, fileId }, 'could not start the upload expiry workflow');
    await deps.prisma.upload.delete({ where: { id: fileId } }).catch(() => undefined);
    throw new DomainError('SERVICE_UNAVAILABLE', 'The upload could not be registered; please retry', undefined, {
      retryAfterSeconds: 1,
    });
  }
  return { fileId, objectKey, expiresAt, maxSize };
}

/** Registers the upload (row and expiry timer) and signs the PUT its client sends the bytes with. */
export async function createPresignedUpload(
  deps: UploadDeps,
  accountId: string,
  request: { filename: string; contentType: UploadContentType; size?: number },
): Promise<PresignedUpload> {
  const { fileId, objectKey, expiresAt, maxSize } = await registerUpload(deps, accountId, request);
  const { putWindowSeconds, lifetimeSeconds } = deps.config.uploads;
  const storage = deps.storage;
  const uploadUrl = await storage.presignPut(
    storage.uploadsBucket,
    objectKey,
    request.contentType,
    Math.min(putWindowSeconds, lifetimeSeconds),
    request.size,
  );
  return {
    uploadUrl,
    fileUrl: fileUrlFor(deps.config.api.publicBaseUrl, fileId),
    fileId,
    expiresAt: expiresAt.toISOString(),
    maxSize,
  };
}

/**
 * An upload whose bytes arrived with the request (a compatible API's multipart file): registered as a presigned
 * upload is, with its caps and expiry, and stored at once. A job that names its `fileUrl` has it as an input file,
 * erased with the job and expired with the upload.
 *
 * With `fileId` (an id the caller derived from its request, unguessable), storing is idempotent: a retry of the same
 * request finds the same upload, so the job input that names it is the same too.
 */
export async function storeUpload(
  deps: UploadDeps,
  accountId: string,
  file: { filename: string; contentType: UploadContentType; data: Buffer },
  options: { fileId?: string } = {},
): Promise<{ fileId: string; fileUrl: string }> {
  const stored = (fileId: string) => ({ fileId, fileUrl: fileUrlFor(deps.config.api.publicBaseUrl, fileId) });
  const request = { filename: file.filename, contentType: file.contentType, size: file.data.length };
  if (options.fileId !== undefined) {
    const existing = await deps.prisma.upload.findUnique({ where: { id: options.fileId } });
    if (existing) {
      await storeAgain(deps, accountId, existing, file);
      return stored(existing.id);
    }
  }
  let registered: { fileId: string; objectKey: string };
  try {
    registered = await registerUpload(deps, accountId, request, options.fileId);
  } catch (error) {
    // The same request, retried at the same moment, registered it first.
    const existing = options.fileId !== undefined && isUniqueViolation(error) ? await deps.prisma.upload.findUnique({ where: { id: options.fileId } }) : null;
    if (!existing) throw error;
    await storeAgain(deps, accountId, existing, file);
    return stored(existing.id);
  }
  await deps.storage.putFile(deps.storage.uploadsBucket, registered.objectKey, file.data, file.contentType);
  return stored(registered.fileId);
}

/** A retried request's upload: the same account's and still live; its bytes stored again if they are gone. */
async function storeAgain(deps: UploadDeps, accountId: string, upload: Upload, file: { contentType: string; data: Buffer }): Promise<void> {
  if (upload.accountId !== accountId || isPastExpiry(upload, now(deps))) {
    throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'The files of the first request with this Idempotency-Key have expired; send the request with a new key');
  }
  if (!(await deps.storage.stat(deps.storage.uploadsBucket, upload.objectKey))) {
    await deps.storage.putFile(deps.storage.uploadsBucket, upload.objectKey, file.data, file.contentType);
  }
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'P2002';
}

/** Refuses a presign that would take the account past its open-upload caps; Retry-After until its oldest expires. */
async function checkOpenUploadCaps(
  tx: Pick<PrismaClient, 'upload'>,
  caps: { maxOpenPerAccount: number; maxOpenBytesPerAccount: number },
  accountId: string,
  reservingBytes: number,
  at: Date,
): Promise<void> {
  const open = { accountId, status: { in: ['awaiting_upload', 'uploaded'] as ('awaiting_upload' | 'uploaded')[] }, expiresAt: { gt: at } };
  const summary = await tx.upload.aggregate({ where: open, _count: { _all: true }, _sum: { maxSizeBytes: true }, _min: { expiresAt: true } });
  const count = summary._count._all;
  const bytes = summary._sum.maxSizeBytes ?? 0;
  const which =
    count + 1 > caps.maxOpenPerAccount
      ? { window: 'open_uploads', limit: caps.maxOpenPerAccount, message: `at most ${caps.maxOpenPerAccount} uploads may be open at once` }
      : bytes + reservingBytes > caps.maxOpenBytesPerAccount
        ? { window: 'open_upload_bytes', limit: caps.maxOpenBytesPerAccount, message: `open uploads may reserve at most ${caps.maxOpenBytesPerAccount} bytes` }
        : null;
  if (!which) return;
  const oldest = summary._min.expiresAt ?? at;
  const retryAfterSeconds = Math.max(1, Math.ceil((oldest.getTime() - at.getTime()) / 1000));
  throw new DomainError(
    'RATE_LIMIT_EXCEEDED',
    `Too many open uploads: ${which.message}; retry once one expires`,
    { window: which.window, limit: which.limit, retryAfterSeconds },
    { retryAfterSeconds },
  );
}

async function findOwnUpload(deps: Pick<UploadDeps, 'prisma'>, accountId: string, fileId: string): Promise<Upload> {
  const upload = await deps.prisma.upload.findUnique({ where: { id: fileId } });
  // Another account's upload is indistinguishable from a missing one.
  if (!upload || upload.accountId !== accountId) throw new DomainError('UPLOAD_NOT_FOUND', `Upload ${fileId} not found`);
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
  deps: Pick<FileReferenceDeps, 'prisma' | 'storage' | 'clock'>,
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
    maxSizeBytes: upload.maxSizeBytes,
    expiresAt: upload.expiresAt,
  };
}

/** The uploads feature: presign, status and downloads of the files, assembled once over the process's stores. */
export function createUploadService(deps: UploadDeps) {
  return {
    presign: (accountId: string, request: { filename: string; contentType: UploadContentType; size?: number }) => createPresignedUpload(deps, accountId, request),
    /** Registers and stores a file received with a request; its `fileUrl` goes into a job's input. */
    store: (accountId: string, file: { filename: string; contentType: UploadContentType; data: Buffer }, options?: { fileId?: string }) =>
      storeUpload(deps, accountId, file, options),
    status: (accountId: string, fileId: string) => getUploadStatus(deps, accountId, fileId),
    findDownload: (fileId: string) => findDownload(deps, fileId),
    /** A short-lived GET URL of a download, named for the browser by `contentDisposition`. */
    signDownload: (target: DownloadTarget, seconds: number, contentDisposition: string) =>
      deps.storage.presignGet(target.bucket, target.key, seconds, { contentType: target.contentType, contentDisposition }),
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
