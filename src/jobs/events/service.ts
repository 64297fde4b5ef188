/** A job's and an account's events: JSON pages, live feeds and the signed events URL, over the process's stores. */
import type { Config } from '../../config';
import type { PrismaClient } from '../../db/prisma';
import type { Storage } from '../../storage/storage';
import type { SignOutputUrl } from '../views';
import { eventsUrlSignerFor } from './eventsUrl';
import { openJobEventFeed, type FeedPosition } from './feed';
import type { JobEventHub } from './hub';
import { accountEventPage, findStreamableJob, jobEventPage } from './read';
import type { JobEventRow } from './rows';
import { toEventView } from './view';

export function createJobEventService(deps: { config: Config; prisma: PrismaClient; storage: Storage; events: JobEventHub }) {
  const { storage } = deps;
  const ttl = deps.config.jobs.outputUrlTtlSeconds;
  const signUrl: SignOutputUrl = (key, contentType) => storage.presignGet(storage.outputsBucket, key, ttl, { contentType });
  const eventsUrls = eventsUrlSignerFor(deps.config);
  return {
    accountPage: (accountId: string, after: bigint, limit: number) => accountEventPage(deps.prisma, accountId, after, limit, signUrl),
    jobPage: (jobId: string, after: bigint, limit: number) => jobEventPage(deps.prisma, jobId, after, limit, signUrl),
    /** The caller's job whose events may be read, or JOB_NOT_FOUND. */
    findJob: (accountId: string, jobId: string) => findStreamableJob(deps.prisma, accountId, jobId),
    openFeed: (position: FeedPosition) => openJobEventFeed(deps.events, deps.prisma, position),
    /** An event as clients see it (output URLs signed now). */
    view: (row: JobEventRow) => toEventView(row, signUrl),
    /** The account an events URL token was signed for, and its expiry; refused when it is not valid for this job. */
    verifyEventsUrl: (jobId: string, token: string) => eventsUrls.verify(jobId, token),
  };
}

export type JobEventService = ReturnType<typeof createJobEventService>;
