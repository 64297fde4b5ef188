/**
 * Deletes an upload over its size limit within seconds of its PUT. A presigned PUT without a declared size cannot
 * cap the bytes, and the URL accepts any number of PUTs until its window closes, each replacing the object. So every
 * API process lists, every uploads.sweepIntervalMs, the objects of the uploads bucket (one request per 1,000) and
 * compares each with its row: an object the row does not record as uploaded with that size and ETag (new, or
 * replaced by a later PUT, also one that finished after the window closed) is inspected by `inspectUpload`, which
 * deletes it when it is over its limit and records it otherwise. An object whose upload has expired (a PUT that
 * finished after the expiry) is deleted. The bucket holds at most the per-account caps of open uploads per account.
 *
 * MinIO's bucket notification stream (ListenBucketNotification) would push instead of poll, but the MinIO build the
 * bootstrap installs never answers that request, and a webhook target must be configured at MinIO's start with one
 * fixed receiver, which neither the dev stack nor the tests' many APIs have.
 */
import type { PrismaClient } from '@prisma/client';
import type { Logger } from '../logger';
import type { ListedObject, Storage } from '../storage/storage';
import { now } from './deps';
import { inspectUpload, isPastExpiry, recordsObject } from './inspect';
import type { Clock } from '../lib/clock';

export interface NewObjectWatcher {
  /** Inspects the uploads bucket once now (the interval does the same); for tests and shutdown ordering. */
  sweep(): Promise<void>;
  close(): void;
}

interface WatcherDeps {
  prisma: Pick<PrismaClient, 'upload'>;
  storage: Storage;
  logger: Pick<Logger, 'warn' | 'info'>;
  config: { uploads: { sweepIntervalMs: number } };
  clock?: Clock;
}

/** Rows looked up per query: one listing page. */
const BATCH = 1_000;

export function watchNewUploads(deps: WatcherDeps): NewObjectWatcher {
  const { logger, storage } = deps;
  let running: Promise<void> | null = null;

  async function checkBatch(objects: ListedObject[], at: Date): Promise<void> {
    const rows = await deps.prisma.upload.findMany({ where: { objectKey: { in: objects.map((o) => o.key) } } });
    const byKey = new Map(rows.map((row) => [row.objectKey, row]));
    for (const object of objects) {
      const upload = byKey.get(object.key);
      // No upload names it (UPLOADS_BUCKET may be the outputs bucket too): not the sweep's to judge.
      if (!upload) continue;
      if (isPastExpiry(upload, at)) {
        await storage.remove(storage.uploadsBucket, object.key);
        logger.info({ fileId: upload.id, sizeBytes: object.size }, 'object of an expired upload deleted');
        continue;
      }
      if (recordsObject(upload, object)) continue;
      const state = await inspectUpload(deps, upload, at);
      if (state.rejectedSizeBytes !== undefined) {
        logger.info({ fileId: upload.id, sizeBytes: state.rejectedSizeBytes, maxSizeBytes: upload.maxSizeBytes }, 'over-size upload deleted');
      }
    }
  }

  async function sweepOnce(): Promise<void> {
    const at = now(deps);
    let batch: ListedObject[] = [];
    for await (const object of storage.listObjects(storage.uploadsBucket, '')) {
      batch.push(object);
      if (batch.length === BATCH) {
        await checkBatch(batch, at);
        batch = [];
      }
    }
    if (batch.length > 0) await checkBatch(batch, at);
  }

  /** One sweep at a time: a slow storage makes sweeps later, never concurrent. */
  function sweep(): Promise<void> {
    running ??= sweepOnce()
      .catch((err) => logger.warn({ err }, 'could not inspect the uploads bucket'))
      .finally(() => {
        running = null;
      });
    return running;
  }

  const timer = setInterval(() => void sweep(), deps.config.uploads.sweepIntervalMs);
  timer.unref();
  return {
    sweep,
    close() {
      clearInterval(timer);
    },
  };
}
