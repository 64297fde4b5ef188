/**
 * Fixed times for what the screenshots show. The rows a test writes carry the moment it ran, and the console shows
 * them (audit log, ledger, keys, a job's facts, the usage chart by day): a baseline would depend on the day and the
 * time of day of the run, and a date's width moves the columns beside it. `pinAccountTimes` moves every time one
 * account's pages show to fixed instants, in the order the rows were written, so a page shows the same times on any
 * day.
 */
import type { PrismaClient } from '../../../src/db/prisma';

const MINUTE_MS = 60_000;
/** A job's start and end after its submission, as pinned. */
const STARTED_AFTER_MS = 5_000;
const FINISHED_AFTER_MS = 30_000;

const utcDay = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
const utcMonth = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));

/**
 * Rows in the order they were written (time, then id: the order the console lists them in), each given the next
 * minute from `start`. Ranks, not the gaps between the real times: those vary from run to run.
 */
function minutesInOrder<T extends { id: string | bigint; createdAt: Date }>(rows: T[], start: Date): Array<[T, Date]> {
  const ordered = [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return ordered.map((row, i) => [row, new Date(start.getTime() + i * MINUTE_MS)]);
}

/**
 * Moves the times `accountId`'s pages show to fixed instants from `start` on: the account's creation at `start`, and
 * its keys, ledger entries, jobs and audit entries (its own and its keys') each a minute apart in the order they
 * were written. Its spend counters go to the day and month of `start`, so a page read on any later day shows
 * nothing spent today or this month. Job events, estimates and attempts stay as they are: no screenshot shows them,
 * and a changed estimate would be a progress event. The jobs' retention stays on the real clock too: a retention
 * ended in March by the server's clock is one any sweep on the shared database deletes the outputs of, and a
 * screenshot masks the date it shows.
 */
export async function pinAccountTimes(prisma: PrismaClient, accountId: string, start: Date): Promise<void> {
  const account = await prisma.account.findUniqueOrThrow({ where: { id: accountId } });
  const keys = await prisma.apiKey.findMany({ where: { accountId } });
  const ledger = await prisma.ledgerEntry.findMany({ where: { accountId } });
  const jobs = await prisma.job.findMany({ where: { accountId } });
  const audit = await prisma.auditEntry.findMany({ where: { targetId: { in: [accountId, ...keys.map((k) => k.id)] } } });

  const later = (at: Date, ms: number) => new Date(at.getTime() + ms);
  const counters = (row: { spendDay: Date | null; spendMonth: Date | null }) => ({
    spendDay: row.spendDay && utcDay(start),
    spendMonth: row.spendMonth && utcMonth(start),
  });

  await prisma.$transaction([
    prisma.account.update({
      where: { id: accountId },
      data: { createdAt: start, updatedAt: start, suspendedAt: account.suspendedAt && start, ...counters(account) },
    }),
    ...minutesInOrder(keys, start).map(([key, at]) =>
      prisma.apiKey.update({ where: { id: key.id }, data: { createdAt: at, revokedAt: key.revokedAt && later(at, MINUTE_MS / 2), ...counters(key) } }),
    ),
    ...minutesInOrder(ledger, start).map(([entry, at]) => prisma.ledgerEntry.update({ where: { id: entry.id }, data: { createdAt: at } })),
    ...minutesInOrder(jobs, start).map(([job, at]) =>
      prisma.job.update({
        where: { id: job.id },
        data: {
          createdAt: at,
          startedAt: job.startedAt && later(at, STARTED_AFTER_MS),
          completedAt: job.completedAt && later(at, FINISHED_AFTER_MS),
          updatedAt: job.completedAt ? later(at, FINISHED_AFTER_MS) : at,
        },
      }),
    ),
    ...minutesInOrder(audit, start).map(([entry, at]) => prisma.auditEntry.update({ where: { id: entry.id }, data: { createdAt: at } })),
  ]);
}
