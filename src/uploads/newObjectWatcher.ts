/**
 * Deletes an upload over its size limit as soon as MinIO reports it stored. A presigned PUT without a declared size
 * cannot cap the bytes, so the cap is enforced right after the PUT: MinIO's bucket notification stream
 * (ListenBucketNotification, through minio-js) tells this process of every new object in the uploads bucket, and
 * `inspectUpload` deletes an over-size one and brings the row up to date.
 *
 * The stream is not durable: events sent while it is down are lost. After every (re)connection the uploads whose
 * PUT window is still open are inspected once, and an over-size file is refused wherever it is used and deleted at
 * expiry in any case.
 */
import type { PrismaClient } from '@prisma/client';
import type { NotificationPoller } from 'minio';
import type { Logger } from '../logger';
import type { Storage } from '../storage/storage';
import { now } from './deps';
import { inspectUpload } from './inspect';

export interface NewObjectWatcher {
  /** Resolves once the first sweep after connecting is done (for tests). */
  readonly ready: Promise<void>;
  close(): void;
}

interface WatcherDeps {
  prisma: Pick<PrismaClient, 'upload'>;
  storage: Storage;
  logger: Pick<Logger, 'warn' | 'info'>;
  config: { uploads: { putWindowSeconds: number } };
  clock?: () => Date;
}

const RECONNECT_MIN_MS = 1_000;
const RECONNECT_MAX_MS = 30_000;
const SWEEP_DELAY_MS = 500;

interface NotificationRecord {
  s3?: { bucket?: { name?: string }; object?: { key?: string; size?: number } };
}

/** S3 notification keys are URL-encoded, with `+` for spaces. */
function objectKeyOf(record: NotificationRecord): string | null {
  const key = record.s3?.object?.key;
  if (typeof key !== 'string') return null;
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

export function watchNewUploads(deps: WatcherDeps): NewObjectWatcher {
  const { storage, logger } = deps;
  let poller: NotificationPoller | null = null;
  let closed = false;
  let retryDelay = RECONNECT_MIN_MS;
  let retryTimer: NodeJS.Timeout | null = null;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  async function inspectKey(objectKey: string): Promise<void> {
    const upload = await deps.prisma.upload.findUnique({ where: { objectKey } });
    if (!upload) return;
    const state = await inspectUpload(deps, upload, now(deps));
    if (state.rejectedSizeBytes !== undefined) {
      logger.info({ fileId: upload.id, sizeBytes: state.rejectedSizeBytes, maxSizeBytes: upload.maxSizeBytes }, 'over-size upload deleted');
    }
  }

  /** Uploads whose PUT could have happened while the stream was down. */
  async function sweep(): Promise<void> {
    const at = now(deps);
    const putWindowOpenSince = new Date(at.getTime() - deps.config.uploads.putWindowSeconds * 1000);
    const open = await deps.prisma.upload.findMany({
      where: { status: 'awaiting_upload', createdAt: { gt: putWindowOpenSince }, expiresAt: { gt: at } },
      select: { objectKey: true },
    });
    for (const { objectKey } of open) await inspectKey(objectKey);
  }

  function connect(): void {
    if (closed) return;
    const next = storage.client.listenBucketNotification(storage.uploadsBucket, '', '', ['s3:ObjectCreated:*']);
    poller = next;
    next.on('notification', (record) => {
      retryDelay = RECONNECT_MIN_MS;
      const key = objectKeyOf(record as NotificationRecord);
      if (key === null) return;
      inspectKey(key).catch((err) => logger.warn({ err }, 'could not inspect a new upload'));
    });
    next.on('error', (err) => {
      next.stop();
      if (poller !== next || closed) return;
      poller = null;
      logger.warn({ err, retryInMs: retryDelay }, 'upload notification stream lost; reconnecting');
      retryTimer = setTimeout(connect, retryDelay);
      retryTimer.unref();
      retryDelay = Math.min(retryDelay * 2, RECONNECT_MAX_MS);
    });
    // The sweep waits until the subscription has had time to start, so a PUT made meanwhile is found by one or the other.
    const sweepTimer = setTimeout(() => {
      sweep()
        .catch((err) => logger.warn({ err }, 'could not sweep open uploads'))
        .finally(markReady);
    }, SWEEP_DELAY_MS);
    sweepTimer.unref();
  }

  connect();
  return {
    ready,
    close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      poller?.stop();
      poller = null;
    },
  };
}
