/**
 * Deletes an upload over its size limit within seconds of its PUT. A presigned PUT without a declared size cannot
 * cap the bytes, so every API process looks, every UPLOAD_SWEEP_INTERVAL_MS, at the uploads whose PUT window is open
 * and that are not marked uploaded yet: `inspectUpload` deletes an over-size object and marks one within its limit
 * `uploaded` (which takes it out of the next sweeps). The work is bounded by the per-account caps on open uploads.
 *
 * MinIO's bucket notification stream (ListenBucketNotification) would push instead of poll, but the MinIO build the
 * bootstrap installs never answers that request, and a webhook target must be configured at MinIO's start with one
 * fixed receiver, which neither the dev stack nor the tests' many APIs have.
 */
import type { PrismaClient } from '@prisma/client';
import type { Logger } from '../logger';
import type { Storage } from '../storage/storage';
import { now } from './deps';
import { inspectUpload } from './inspect';

export interface NewObjectWatcher {
  /** Inspects the open uploads once now (the interval does the same); for tests and shutdown ordering. */
  sweep(): Promise<void>;
  close(): void;
}

interface WatcherDeps {
  prisma: Pick<PrismaClient, 'upload'>;
  storage: Storage;
  logger: Pick<Logger, 'warn' | 'info'>;
  config: { uploads: { putWindowSeconds: number; sweepIntervalMs: number } };
  clock?: () => Date;
}

export function watchNewUploads(deps: WatcherDeps): NewObjectWatcher {
  const { logger } = deps;
  let running: Promise<void> | null = null;

  async function sweepOnce(): Promise<void> {
    const at = now(deps);
    const putWindowOpenSince = new Date(at.getTime() - deps.config.uploads.putWindowSeconds * 1000);
    const open = await deps.prisma.upload.findMany({
      where: { status: 'awaiting_upload', createdAt: { gt: putWindowOpenSince }, expiresAt: { gt: at } },
    });
    for (const upload of open) {
      const state = await inspectUpload(deps, upload, at);
      if (state.rejectedSizeBytes !== undefined) {
        logger.info({ fileId: upload.id, sizeBytes: state.rejectedSizeBytes, maxSizeBytes: upload.maxSizeBytes }, 'over-size upload deleted');
      }
    }
  }

  /** One sweep at a time: a slow storage makes sweeps later, never concurrent. */
  function sweep(): Promise<void> {
    running ??= sweepOnce()
      .catch((err) => logger.warn({ err }, 'could not inspect open uploads'))
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
