/** GET /v1/jobs/{jobId}: the full record of one of the caller's own jobs. */
import type { PrismaClient } from '../db/prisma';
import { DomainError } from '../shared/errors';
import type { Storage } from '../storage/storage';
import type { EventsUrlSigner } from './events/eventsUrl';
import { createAttemptStore } from './attempts';
import { toDetail, type JobDetail } from './views';
import { toDeliveryView } from '../shared/outputDelivery';

/** Another account's job answers exactly like a missing one, so job ids do not leak. */
export async function getJob(
  deps: { prisma: PrismaClient; storage: Storage; outputUrlTtlSeconds: number; eventsUrls: EventsUrlSigner },
  accountId: string,
  jobId: string,
): Promise<JobDetail> {
  const job = await deps.prisma.job.findUnique({ where: { id: jobId }, include: { delivery: true } });
  if (!job || job.accountId !== accountId) throw new DomainError('JOB_NOT_FOUND', `Job ${jobId} not found`);
  const { storage, outputUrlTtlSeconds } = deps;
  const attempts = await createAttemptStore(deps.prisma).listFor([job.id]);
  return toDetail(
    job,
    (key, contentType) => storage.presignGet(storage.outputsBucket, key, outputUrlTtlSeconds, { contentType }),
    outputUrlTtlSeconds,
    deps.eventsUrls.urlFor({ jobId: job.id, accountId }).url,
    attempts.get(job.id) ?? [],
    toDeliveryView(job.delivery),
  );
}
