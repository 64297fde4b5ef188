/**
 * Reads of an account's jobs for the other views of them (the compatible dialects' predictions and videos): one job,
 * its event log, its outputs, a page in listing order, a count. The views shape what they read; the queries are here.
 */
import type { Job, Prisma } from '@prisma/client';
import type { PrismaClient } from '../db/prisma';
import type { JobOutput } from '../shared/jobs';

/** What a read with `select` gives: those fields, or the whole job row without one. */
export type SelectedJob<S extends Prisma.JobSelect | undefined> = S extends Prisma.JobSelect ? Prisma.JobGetPayload<{ select: S }> : Job;

/** Where a job stands in the listing order: its creation time, then its sequence number. */
export interface JobPosition {
  createdAt: Date;
  seq: bigint;
}

/**
 * The job of `jobId` with the fields of `select` (the whole row without it) when it is `accountId`'s, else null:
 * another account's job reads exactly like a missing one.
 */
export async function findAccountJob<S extends Prisma.JobSelect | undefined = undefined>(
  prisma: PrismaClient,
  accountId: string,
  jobId: string,
  select?: S,
): Promise<SelectedJob<S> | null> {
  const args: Prisma.JobFindUniqueArgs = { where: { id: jobId }, ...(select ? { select: { ...select, accountId: true } } : {}) };
  const job = (await prisma.job.findUnique(args)) as { accountId: string } | null;
  return job && job.accountId === accountId ? (job as unknown as SelectedJob<S>) : null;
}

/** The job of `jobId`, whoever's it is: for a credential that stands for the job itself (an output URL's token). */
export function findJobOwner(prisma: PrismaClient, jobId: string): Promise<{ id: string; accountId: string; apiKeyId: string | null } | null> {
  return prisma.job.findUnique({ where: { id: jobId }, select: { id: true, accountId: true, apiKeyId: true } });
}

/** The position of the account's job `jobId` in the listing order, or null when it has none. */
export function positionOfAccountJob(prisma: PrismaClient, accountId: string, jobId: string): Promise<JobPosition | null> {
  return prisma.job.findFirst({ where: { id: jobId, accountId }, select: { createdAt: true, seq: true } });
}

export interface AccountJobsPage<S extends Prisma.JobSelect | undefined> {
  accountId: string;
  /** Newest first ('desc') or oldest first ('asc'). */
  order: 'asc' | 'desc';
  /** Only the jobs past this position in `order`. */
  after?: JobPosition;
  /** Only the jobs of these models. */
  modelSlugs?: string[];
  take: number;
  /** The fields to read; the whole row without it. */
  select?: S;
}

/** Up to `take` of the account's jobs in `order`, past `after`. */
export function listAccountJobs<S extends Prisma.JobSelect | undefined = undefined>(prisma: PrismaClient, page: AccountJobsPage<S>): Promise<SelectedJob<S>[]> {
  const past = page.order === 'desc' ? 'lt' : 'gt';
  const after: Prisma.JobWhereInput = page.after
    ? { OR: [{ createdAt: { [past]: page.after.createdAt } }, { createdAt: page.after.createdAt, seq: { [past]: page.after.seq } }] }
    : {};
  return prisma.job.findMany({
    where: { accountId: page.accountId, ...(page.modelSlugs ? { modelSlug: { in: page.modelSlugs } } : {}), ...after },
    ...(page.select ? { select: page.select } : {}),
    orderBy: [{ createdAt: page.order }, { seq: page.order }],
    take: page.take,
  }) as unknown as Promise<SelectedJob<S>[]>;
}

/** How many jobs the account ran of the model `modelSlug`. */
export function countAccountRunsOf(prisma: PrismaClient, accountId: string, modelSlug: string): Promise<number> {
  return prisma.job.count({ where: { accountId, modelSlug } });
}

/** The stored outputs of each of `jobIds`, by job id. */
export async function outputsOfJobs(prisma: PrismaClient, jobIds: string[]): Promise<Map<string, JobOutput[]>> {
  const rows = await prisma.job.findMany({ where: { id: { in: jobIds } }, select: { id: true, outputs: true } });
  return new Map(rows.map((row) => [row.id, (row.outputs ?? []) as unknown as JobOutput[]]));
}

/** The job's events in order, with what a log line of each says. */
export function eventLogOf(prisma: PrismaClient, jobId: string) {
  return prisma.jobEvent.findMany({
    where: { jobId },
    orderBy: { sequence: 'asc' },
    select: { createdAt: true, type: true, status: true, progress: true, stage: true, errorMessage: true, placeInLine: true, estimatedCompletionTime: true },
  });
}
