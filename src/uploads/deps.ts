import type { PrismaClient } from '@prisma/client';
import type { Client } from '@temporalio/client';
import type { Storage } from '../storage/storage';
import type { Clock } from '../lib/clock';

/** What the upload use-cases need; the API's dependencies satisfy it structurally. */
export interface UploadDeps {
  config: {
    api: { publicBaseUrl: string };
    uploads: { putWindowSeconds: number; lifetimeSeconds: number; maxOpenPerAccount: number; maxOpenBytesPerAccount: number };
    temporal: { jobsTaskQueue: string };
  };
  prisma: Pick<PrismaClient, 'upload' | '$transaction'>;
  storage: Storage;
  temporal: Pick<Client, 'workflow'>;
  clock?: Clock;
  logger?: { warn(details: object, message: string): void };
}

/** The subset needed to read uploads and check file references in job inputs. */
export interface FileReferenceDeps {
  prisma: Pick<PrismaClient, 'upload'>;
  storage: Storage;
  clock?: Clock;
  config: { api: { publicBaseUrl: string } };
}

export function now(deps: { clock?: Clock }): Date {
  return new Date(deps.clock ? deps.clock.now() : Date.now());
}
