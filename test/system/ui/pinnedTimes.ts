/**
 * Fixed times for what the screenshots show. The rows a test writes carry the moment it ran, and the console shows
 * them (audit log, ledger, keys, a job's facts, the usage chart by day): a baseline would depend on the day and the
 * time of day of the run, and a date's width moves the columns beside it. `pinAccountTimes` moves every time one
 * account's pages show to fixed instants, in the order they happened, so a page shows the same times on any day.
 */
import type { PrismaClient } from '../../../src/db/prisma';

const MINUTE_MS = 60_000;

const utcDay = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
const utcMonth = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));

/** The instants of a run, each mapped to the next minute from `start` in their order (equal instants stay equal). */
function timeline(instants: Date[], start: Date): (at: Date) => Date {
  const distinct = [...new Set(instants.map((at) => at.getTime()))].sort((a, b) => a - b);
  const slot = new Map(distinct.map((ms, i) => [ms, new Date(start.getTime() + i * MINUTE_MS)]));
  return (at) => slot.get(at.getTime())!;
}

/**
 * Moves the times of `accountId` and of its keys, ledger entries, jobs and audit entries to one minute apart from
 * `start` on, in the order they were written, and its spend counters to the day and month of `start` (so a page read
 * on any later day shows nothing spent today or this month). Job events, estimates and attempts are left alone:
 * no screenshot shows them, and a changed estimate would be a progress event.
 */
export async function pinAccountTimes(prisma: PrismaClient, accountId: string, start: Date): Promise<void> {
  const account = await prisma.account.findUniqueOrThrow({ where: { id: accountId } });
  const keys = await prisma.apiKey.findMany({ where: { accountId } });
  const ledger = await prisma.ledgerEntry.findMany({ where: { accountId } });
  const jobs = await prisma.job.findMany({ where: { accountId } });
  const audit = await prisma.auditEntry.findMany({ where: { targetId: { in: [accountId, ...keys.map((k) => k.id)] } } });

  const pinned = timeline(
    [
      account.createdAt,
      ...(account.suspendedAt ? [account.suspendedAt] : []),
      ...keys.flatMap((k) => [k.createdAt, k.lastUsedAt, k.revokedAt].filter((at): at is Date => at !== null)),
      ...ledger.map((l) => l.createdAt),
      ...jobs.flatMap((j) => [j.createdAt, j.startedAt, j.completedAt].filter((at): at is Date => at !== null)),
      ...audit.map((a) => a.createdAt),
    ],
    start,
  );
  const pin = (at: Date | null) => (at ? pinned(at) : null);
  const counters = (row: { spendDay: Date | null; spendMonth: Date | null }) => ({
    spendDay: row.spendDay && utcDay(start),
    spendMonth: row.spendMonth && utcMonth(start),
  });

  await prisma.$transaction([
    prisma.account.update({
      where: { id: accountId },
      data: { createdAt: pin(account.createdAt)!, updatedAt: start, suspendedAt: pin(account.suspendedAt), ...counters(account) },
    }),
    ...keys.map((k) =>
      prisma.apiKey.update({
        where: { id: k.id },
        data: { createdAt: pin(k.createdAt)!, lastUsedAt: pin(k.lastUsedAt), revokedAt: pin(k.revokedAt), ...counters(k) },
      }),
    ),
    ...ledger.map((l) => prisma.ledgerEntry.update({ where: { id: l.id }, data: { createdAt: pin(l.createdAt)! } })),
    ...jobs.map((j) =>
      prisma.job.update({
        where: { id: j.id },
        data: { createdAt: pin(j.createdAt)!, startedAt: pin(j.startedAt), completedAt: pin(j.completedAt), updatedAt: start },
      }),
    ),
    ...audit.map((a) => prisma.auditEntry.update({ where: { id: a.id }, data: { createdAt: pin(a.createdAt)! } })),
  ]);
}
