/** GET /v1/jobs/{jobId}: the full record of one of the caller's own jobs. */
import type { Job } from '@prisma/client';
import { modelColumns } from '../db/modelRows';
import { sqlPool, type PrismaClient } from '../db/prisma';
import { DomainError } from '../shared/errors';
import type { Storage } from '../storage/storage';
import type { EventsUrlSigner } from './events/eventsUrl';
import { createAttemptStore } from './attempts';
import { toDetail, type JobDetail } from './views';
import { toDeliveryView } from '../shared/outputDelivery';

const JOB = modelColumns<Job>('Job', 'j');

type JobRow = Job & {
  deliveryFound: boolean;
  deliveryStatus: string | null;
  deliveryReason: string | null;
  deliveryKeys: string[] | null;
  deliveryDeliveredAt: Date | null;
};

/** Another account's job answers exactly like a missing one, so job ids do not leak. */
export async function getJob(
  deps: { prisma: PrismaClient; storage: Storage; outputUrlTtlSeconds: number; eventsUrls: EventsUrlSigner },
  accountId: string,
  jobId: string,
): Promise<JobDetail> {
  // One statement through node-postgres (Prisma's include took two, each compiled): every `Prefer: wait` answer reads it.
  const { rows } = await sqlPool(deps.prisma).query(
    `SELECT ${JOB.list}, d.job_id IS NOT NULL AS "deliveryFound", d.status AS "deliveryStatus", d.reason AS "deliveryReason",
            d.keys AS "deliveryKeys", d.delivered_at AS "deliveryDeliveredAt"
     FROM jobs j LEFT JOIN job_deliveries d ON d.job_id = j.id WHERE j.id = $1`,
    [jobId],
  );
  const row = rows[0] as JobRow | undefined;
  if (!row || row.accountId !== accountId) throw new DomainError('JOB_NOT_FOUND', `Job ${jobId} not found`);
  const job = JOB.read(row);
  const { storage, outputUrlTtlSeconds } = deps;
  const attempts = await createAttemptStore(deps.prisma).listFor([job.id]);
  return toDetail(
    job,
    (key, contentType) => storage.presignGet(storage.outputsBucket, key, outputUrlTtlSeconds, { contentType }),
    outputUrlTtlSeconds,
    deps.eventsUrls.urlFor({ jobId: job.id, accountId }).url,
    attempts.get(job.id) ?? [],
    toDeliveryView(row.deliveryFound ? { status: row.deliveryStatus!, reason: row.deliveryReason, keys: row.deliveryKeys!, deliveredAt: row.deliveryDeliveredAt } : null),
  );
}
