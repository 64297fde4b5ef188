import type { PrismaClient } from '@prisma/client';
import type { Storage } from '../src/storage/storage';
import type { ExpireUploadResult } from '../src/contracts/workflows/uploadExpiry';

export interface UploadActivityDeps {
  prisma: Pick<PrismaClient, 'upload'>;
  storage: Storage;
  clock?: () => Date;
}

export function createUploadActivities(deps: UploadActivityDeps) {
  return {
    /** Deletes the upload's object and marks it expired. Repeating it changes nothing. */
    async expireUpload(fileId: string): Promise<ExpireUploadResult> {
      const upload = await deps.prisma.upload.findUnique({ where: { id: fileId } });
      if (!upload) return { found: false };
      await deps.storage.remove(deps.storage.uploadsBucket, upload.objectKey);
      await deps.prisma.upload.updateMany({
        where: { id: fileId, status: { not: 'expired' } },
        data: { status: 'expired', expiredAt: deps.clock ? deps.clock() : new Date() },
      });
      return { found: true };
    },
  };
}

export type UploadActivities = ReturnType<typeof createUploadActivities>;
