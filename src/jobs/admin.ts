/** Operator views of jobs: one job in full, and what each provider earned against what its upstream cost. */
import type { PrismaClient } from '@prisma/client';
import type { AdminJob, ProviderMargin } from '../contracts/http/admin';
import type { JobOutput } from '../shared/jobs';
import { toNumber } from '../shared/money';

/** The admin view of a job, but for the link to its workflow, which the caller adds. */
export type JobAdminView = Omit<AdminJob, 'workflowUrl'>;

export async function showJob(prisma: PrismaClient, jobId: string): Promise<JobAdminView | null> {
  const job = await prisma.job.findUnique({ where: { id: jobId } });
  if (!job) return null;
  const ledger = await prisma.ledgerEntry.findMany({ where: { jobId }, orderBy: { id: 'asc' } });
  return {
    jobId: job.id,
    accountId: job.accountId,
    status: job.status,
    progress: job.progress,
    model: job.modelSlug,
    version: job.versionId,
    providerId: job.providerId,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    completedAt: job.completedAt?.toISOString() ?? null,
    costMicroCents: toNumber(job.costMicroCents),
    refundedMicroCents: toNumber(job.refundedMicroCents),
    error: job.errorCode ? { code: job.errorCode, message: job.errorMessage ?? '' } : null,
    upstream: {
      id: job.upstreamId,
      submittedAt: job.upstreamSubmittedAt?.toISOString() ?? null,
      stage: job.upstreamStage,
      queuePosition: job.upstreamQueuePosition,
      costMicroCents: job.upstreamCostMicroCents === null ? null : toNumber(job.upstreamCostMicroCents),
    },
    input: job.input,
    outputs: job.outputs as unknown as JobOutput[],
    ledger: ledger.map((e) => ({ kind: e.kind, amountMicroCents: toNumber(e.amountMicroCents), createdAt: e.createdAt.toISOString() })),
  };
}

export async function jobMargins(prisma: PrismaClient, since: Date | null): Promise<ProviderMargin[]> {
  const rows = await prisma.$queryRaw<
    { provider_id: string; jobs: bigint; completed: bigint; revenue: bigint; cost: bigint; with_cost: bigint; revenue_with_cost: bigint }[]
  >`
    SELECT provider_id,
           count(*) AS jobs,
           count(*) FILTER (WHERE status = 'completed') AS completed,
           COALESCE(sum(cost_micro_cents - refunded_micro_cents), 0)::bigint AS revenue,
           COALESCE(sum(upstream_cost_micro_cents), 0)::bigint AS cost,
           count(upstream_cost_micro_cents) AS with_cost,
           COALESCE(sum(cost_micro_cents - refunded_micro_cents) FILTER (WHERE upstream_cost_micro_cents IS NOT NULL), 0)::bigint AS revenue_with_cost
    FROM jobs
    WHERE created_at >= ${since ?? new Date(0)}
    GROUP BY provider_id
    ORDER BY provider_id`;
  return rows.map((r) => {
    const withCost = Number(r.with_cost);
    const margin = withCost > 0 ? toNumber(r.revenue_with_cost - r.cost) : null;
    const revenueWithCost = toNumber(r.revenue_with_cost);
    return {
      providerId: r.provider_id,
      jobs: Number(r.jobs),
      completedJobs: Number(r.completed),
      revenueMicroCents: toNumber(r.revenue),
      upstreamCostMicroCents: toNumber(r.cost),
      jobsWithCost: withCost,
      marginMicroCents: margin,
      marginPercent: margin === null || revenueWithCost === 0 ? null : Math.round((margin / revenueWithCost) * 1000) / 10,
    };
  });
}
