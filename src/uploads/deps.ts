import type { PrismaClient } from '@prisma/client';
import type { Client } from '@temporalio/client';
import type { Storage } from '../storage/storage';

/** What the upload use-cases need; the API's dependencies satisfy it structurally. */
export interface UploadDeps {
  config: {
    api: { publicBaseUrl: string };
    uploads: { putWindowSeconds: number; lifetimeSeconds: number };
    temporal: { jobsTaskQueue: string };
  };
  prisma: Pick<PrismaClient, 'upload'>;
  storage: Storage;
  temporal: Pick<Client, 'workflow'>;
  clock?: () => Date;
  logger?: { warn(details: object, message: string): void };
}

/** The subset needed to check file references in job inputs. */
export type FileReferenceDeps = Pick<UploadDeps, 'prisma' | 'storage' | 'clock'> & {
  config: { api: { publicBaseUrl: string } };
};

export function now(deps: { clock?: () => Date }): Date {
  return deps.clock ? deps.clock() : new Date();
}
