/**
 * The reconciler's activities: find jobs still pending or processing whose workflow is no longer running
 * (terminated, failed, timed out, or gone), and fail them with a refund, as their workflow would have; and start the
 * workflow of every open batch that has none running (src/batches/orphans.ts).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import type { Config } from '../src/config';
import { startOrphanedBatches } from '../src/batches/orphans';
import { JobRuleError, type JobStore } from '../src/jobs/store';
import { jobWorkflowId } from '../src/contracts/workflows/job';
import { DEFAULT_WEBHOOK_EVENTS, type WebhookEventType } from '../src/shared/webhooks';

/** The error an abandoned job ends with. */
export const JOB_ABANDONED = 'JOB_ABANDONED';

export interface ReconcileDeps {
  prisma: PrismaClient;
  temporal: Client;
  jobStore: JobStore;
  discardOutputs: (jobId: string) => Promise<void>;
  /** The batch workflow's pace and task queue, for the batches it starts. */
  config: Pick<Config, 'batches' | 'temporal'>;
}

/**
 * What the reconciler's workflow learns of a job it failed: ids, the refund and whether a `job.failed` webhook is due,
 * never the webhook's URL, which would stay in every run's history until the namespace's retention, beyond the job's
 * erasure (the delivery reads the URL from the job row).
 */
export interface AbandonedJobFailed {
  jobId: string;
  refundedMicroCents: number;
  /** The job has a webhook URL and is subscribed to `job.failed`. */
  failedWebhookDue: boolean;
}

async function workflowIsRunning(temporal: Client, jobId: string): Promise<boolean> {
  try {
    const described = await temporal.workflow.getHandle(jobWorkflowId(jobId)).describe();
    return described.status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

export function createReconcileActivities(deps: ReconcileDeps) {
  return {
    /** Up to `limit` unfinished jobs older than `minAgeSeconds` whose workflow is not running, oldest first. */
    async findAbandonedJobs({ minAgeSeconds, limit, accountId }: { minAgeSeconds: number; limit: number; accountId?: string }): Promise<string[]> {
      const candidates = await deps.prisma.job.findMany({
        where: {
          status: { in: ['pending', 'processing'] },
          createdAt: { lt: new Date(Date.now() - minAgeSeconds * 1000) },
          ...(accountId ? { accountId } : {}),
        },
        orderBy: { createdAt: 'asc' },
        take: limit,
        select: { id: true },
      });
      const abandoned: string[] = [];
      for (const { id } of candidates) if (!(await workflowIsRunning(deps.temporal, id))) abandoned.push(id);
      return abandoned;
    },

    /** Fails and refunds the job if it is still unfinished and its workflow still not running; null otherwise. */
    async failAbandonedJob({ jobId }: { jobId: string }): Promise<AbandonedJobFailed | null> {
      if (await workflowIsRunning(deps.temporal, jobId)) return null;
      let refundedMicroCents: number;
      try {
        ({ refundedMicroCents } = await deps.jobStore.fail(jobId, {
          code: JOB_ABANDONED,
          message: 'The job stopped before it finished; its charge was refunded',
        }));
      } catch (err) {
        if (err instanceof JobRuleError && err.code === 'JOB_STATE_CONFLICT') return null; // finished meanwhile
        throw err;
      }
      await deps.discardOutputs(jobId);
      const job = await deps.prisma.job.findUniqueOrThrow({ where: { id: jobId }, select: { webhookUrl: true, webhookEvents: true } });
      const subscribed = job.webhookEvents.length > 0 ? (job.webhookEvents as WebhookEventType[]) : DEFAULT_WEBHOOK_EVENTS;
      return { jobId, refundedMicroCents, failedWebhookDue: job.webhookUrl !== null && subscribed.includes('job.failed') };
    },

    /** Starts the workflow of up to `limit` open batches older than `minAgeSeconds` that have none running. */
    startOrphanedBatches(options: { minAgeSeconds: number; limit: number; accountId?: string }): Promise<string[]> {
      return startOrphanedBatches(deps, options);
    },
  };
}

export type ReconcileActivities = ReturnType<typeof createReconcileActivities>;
