/**
 * The steps of a job's delivery, as plain functions over injected dependencies: `begin` at the job's completion,
 * `prepare` once per delivery run, `attempt` once per try. The delivery workflow calls them through activities and owns
 * the waits between attempts.
 */
import type { PrismaClient } from '@prisma/client';
import type { Config } from '../../config';
import type { Storage } from '../../storage/storage';
import type { JobOutput } from '../../shared/jobs';
import { toNumber } from '../../shared/money';
import type { OutputDeliveryAttemptInput, OutputDeliveryAttemptResult, PreparedOutputDelivery } from '../../shared/outputDelivery';
import { subscribedWebhookEvents } from '../../jobs/views';
import { copyJobOutputs, OutputMissingError, type AttemptProgress } from './copy';

export type { AttemptProgress } from './copy';
import type { DeliveryDestinations } from '../destinations/bucket';
import { OUTPUTS_DELETED_REASON, type DeliveryStore } from './store';
import { UNTHROTTLED, type DeliveryThrottle } from './throttle';

export interface OutputDeliveryDeps {
  prisma: PrismaClient;
  store: DeliveryStore;
  storage: Pick<Storage, 'outputsBucket' | 'getStream'>;
  destinations: DeliveryDestinations;
  config: Config['outputDelivery'];
  /** The account's turns and backoff (one per process); absent: none. */
  throttle?: DeliveryThrottle;
  /** Hears of each delivery once it is settled (metrics). */
  onSettled?: (outcome: 'delivered' | 'failed') => void;
}

export interface OutputDelivery {
  begin(jobId: string): Promise<boolean>;
  prepare(jobId: string): Promise<PreparedOutputDelivery | null>;
  attempt(input: OutputDeliveryAttemptInput, progress?: AttemptProgress): Promise<OutputDeliveryAttemptResult>;
}

/** The heartbeat timeout given over the request timeout: time for a request that timed out to fail its attempt. */
const HEARTBEAT_MARGIN_SECONDS = 15;

/** Longest reason kept on the job: the start of an error is what says what went wrong. */
const MAX_REASON_LENGTH = 500;

function reasonOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  // A refused connection to several addresses is an AggregateError with a code and no message.
  const text = typeof code === 'string' && !message.includes(code) ? (message ? `${code}: ${message}` : code) : message || 'unknown error';
  return text.length > MAX_REASON_LENGTH ? `${text.slice(0, MAX_REASON_LENGTH - 1)}…` : text;
}

export function createOutputDelivery(deps: OutputDeliveryDeps): OutputDelivery {
  const { store, config } = deps;
  const throttle = deps.throttle ?? UNTHROTTLED;

  const settle = async (jobId: string, outcome: Parameters<DeliveryStore['settle']>[1]): Promise<OutputDeliveryAttemptResult> => {
    if (await store.settle(jobId, outcome)) deps.onSettled?.(outcome.status);
    return outcome.status === 'delivered' ? { outcome: 'delivered' } : { outcome: 'failed', reason: outcome.reason };
  };

  return {
    begin: (jobId) => store.begin(jobId, deps.destinations.hasDestination),

    /** Null when the job has no pending delivery: nothing to do. */
    async prepare(jobId) {
      const delivery = await store.find(jobId);
      if (delivery?.status !== 'pending') return null;
      const job = await deps.prisma.job.findUnique({ where: { id: jobId }, select: { webhookUrl: true, webhookEvents: true } });
      return {
        firstAttempt: delivery.attempts + 1,
        giveUpAt: new Date(delivery.createdAt.getTime() + config.retrySeconds * 1000).toISOString(),
        firstBackoffSeconds: config.firstBackoffSeconds,
        maxBackoffSeconds: config.maxBackoffSeconds,
        attemptTimeoutSeconds: config.attemptTimeoutSeconds,
        heartbeatTimeoutSeconds: Math.ceil(config.requestTimeoutSeconds) + HEARTBEAT_MARGIN_SECONDS,
        notify: job !== null && subscribedWebhookEvents(job).includes('job.delivered'),
      };
    },

    async attempt({ jobId, final }, progress) {
      const delivery = await store.find(jobId);
      if (!delivery) return { outcome: 'failed', reason: 'the job has no delivery' };
      if (delivery.status !== 'pending') return { outcome: delivery.status === 'delivered' ? 'delivered' : 'failed', reason: delivery.reason ?? undefined };
      const job = await deps.prisma.job.findUnique({ where: { id: jobId } });
      if (!job || job.status !== 'completed') return settle(jobId, { status: 'failed', reason: 'the job is not completed' });
      if (job.outputsDeletedAt) return settle(jobId, { status: 'failed', reason: OUTPUTS_DELETED_REASON });

      const turn = throttle.take(job.accountId, { final });
      if (!turn.ok) return { outcome: 'deferred', reason: turn.reason, waitSeconds: turn.waitSeconds };
      let keys: string[];
      try {
        const bucket = await deps.destinations.open(job.accountId);
        if (!bucket) return settle(jobId, { status: 'failed', reason: 'the account no longer has a destination' });
        keys = await copyJobOutputs(
          { source: deps.storage, bucket },
          {
            jobId: job.id,
            model: job.modelSlug,
            version: job.versionId,
            costMicroCents: toNumber(job.costMicroCents),
            createdAt: job.createdAt,
            startedAt: job.startedAt,
            completedAt: job.completedAt ?? job.updatedAt,
            outputs: (job.outputs ?? []) as unknown as JobOutput[],
          },
          progress,
        );
        turn.release('delivered');
      } catch (err) {
        turn.release('failed');
        const reason = reasonOf(err);
        if (err instanceof OutputMissingError || final) return settle(jobId, { status: 'failed', reason });
        await store.recordRetry(jobId, reason);
        return { outcome: 'retry', reason };
      }
      return settle(jobId, { status: 'delivered', keys });
    },
  };
}
