/**
 * Records the current workflow code's histories for the replay test (test/workflows/histories/current/): the job
 * workflow and the other long-lived workflows (webhook delivery, which lives up to three days; the job event relay,
 * which continues as new; upload expiry; the delivery of outputs to a customer's bucket, which lives up to a day).
 * Each build runs only the workflows it started (docs/workflow-versioning.md), so after a workflow change the files
 * are recorded again and replace the previous build's:
 *   npx tsx test/workflows/histories/record.ts
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { Context } from '@temporalio/activity';
import { UPSTREAM_CHECK_RETRY } from '../../../src/shared/upstreams';
import type { JobActivities } from '../../../activities/jobs';
import type { GenerationActivities } from '../../../activities/generation';
import type { JobEventRelayActivities } from '../../../activities/jobEventRelay';
import type { UploadActivities } from '../../../activities/uploads';
import type { WebhookActivities } from '../../../activities/webhooks';
import type { OutputDeliveryActivities } from '../../../activities/outputDelivery';
import {
  admitUpdate,
  cancelUpdate,
  jobIdentitySearchAttributes,
  jobStartedSignal,
  jobWorkflowContract,
  jobWorkflowId,
  providerCallbackSignal,
  type JobWorkflowInput,
} from '../../../src/contracts/workflows/job';
import { jobEventWebhooksWorkflowContract, jobEventWebhooksWorkflowId } from '../../../src/contracts/workflows/jobEventWebhooks';
import { outputDeliveryWorkflowContract, outputDeliveryWorkflowId } from '../../../src/contracts/workflows/outputDelivery';
import { uploadExpiryWorkflowContract, uploadWorkflowId } from '../../../src/contracts/workflows/uploadExpiry';
import { webhookDeliveryWorkflowContract, webhookWorkflowId } from '../../../src/contracts/workflows/webhookDelivery';
import { startWorkflow, withStartOperation } from '../../../src/temporal/workflows';
import { bundleWorkflows, createJobTestEnv } from '../temporalEnv';
import { historyToObject } from './format';

const RECORDED = path.join(__dirname, 'current');
const TASK_QUEUE = 'jobs-record';
const PROVIDER_QUEUE = 'provider.record';
const UPSTREAM_QUEUE = 'provider.record-upstream';

/** The recorded deadlines, a second after a job's first input was made (each job's input is made more than once). */
const deadlines = new Map<string, string>();
const deadlineOf = (jobId: string) => {
  if (!deadlines.has(jobId)) deadlines.set(jobId, new Date(Date.now() + 1000).toISOString());
  return deadlines.get(jobId)!;
};

/** Jobs no worker starts: they stay pending until cancelled, by a client or at their deadline. */
const NEVER_STARTED = new Set(['job_rec_cancelled', 'job_rec_deadline_pending']);

function input(jobId: string): JobWorkflowInput {
  return {
    jobId,
    accountId: 'acc_record',
    apiKeyId: 'key_record',
    requestId: 'req_record',
    modelSlug: 'pixelforge/forge-pro/text-to-image',
    modelId: 'forge-pro',
    versionId: 'v2',
    // No worker polls the cancelled job's provider queue: it stays pending until cancelled.
    routes: [{ providerId: 'record', taskQueue: NEVER_STARTED.has(jobId) ? 'provider.nobody' : PROVIDER_QUEUE, expectedProcessingSeconds: 3 }],
    capability: 'text-to-image',
    input: { prompt: 'a recorded fox', num_images: '1', size: 'square_hd', thinking_mode: false },
    webhookUrl: null,
    costMicroCents: 45_000,
    admitBefore: '2099-01-01T00:00:00.000Z',
    // Deadlines: one that cancels a pending job, one that stops a running job, and a batch item's, which bounds only
    // its start (the job runs past it to completion).
    ...(jobId.startsWith('job_rec_deadline') ? { deadline: deadlineOf(jobId) } : {}),
    ...(jobId === 'job_rec_deadline_batch_item' ? { deadlineBoundsStartOnly: true } : {}),
    ...(jobId.startsWith('job_rec_upstream')
      ? {
          routes: [
            {
              providerId: 'record-upstream',
              taskQueue: UPSTREAM_QUEUE,
              upstream: {
                mapping: { model: 'fal-ai/flux/dev', input: { prompt: '$prompt' }, outputs: ['images[].url'] },
                timeoutSeconds: jobId === 'job_rec_upstream_timeout' ? 2 : 600,
                checkRetry: UPSTREAM_CHECK_RETRY,
              },
              expectedProcessingSeconds: 3,
            },
          ],
        }
      : {}),
    // A routed job: its first route (the built-in queue) is down, the second (an upstream) completes it.
    ...(jobId === 'job_rec_routed_planned' ? { routePolicy: { choose: 'price', health: { windowSeconds: 300, minAttempts: 5, maxFailureRate: 0.5, maxStartSeconds: 300 } } } : {}),
    ...(jobId.startsWith('job_rec_routed_hedged')
      ? {
          routePolicy: {
            choose: 'order',
            health: { windowSeconds: 300, minAttempts: 5, maxFailureRate: 0.5, maxStartSeconds: 300 },
            hedge: { enabled: true, maxPriceRatio: 1.25 },
          },
        }
      : {}),
    ...(jobId.startsWith('job_rec_routed')
      ? {
          routes: [
            { providerId: 'record', taskQueue: PROVIDER_QUEUE, expectedProcessingSeconds: 3 },
            {
              providerId: 'record-upstream',
              taskQueue: UPSTREAM_QUEUE,
              upstream: { mapping: { model: 'fal-ai/flux/dev', input: { prompt: '$prompt' }, outputs: ['images[].url'] }, timeoutSeconds: 600, checkRetry: UPSTREAM_CHECK_RETRY },
              expectedProcessingSeconds: 3,
            },
          ],
        }
      : {}),
  };
}

async function main() {
  const [env, bundle] = await Promise.all([createJobTestEnv(), bundleWorkflows()]);
  let release: () => void = () => {};
  const jobs: JobActivities = {
    async admitJob(i) {
      if (i.jobId === 'job_rec_rejected') {
        throw ApplicationFailure.create({ type: 'INSUFFICIENT_BALANCE', message: 'balance too low', nonRetryable: true });
      }
      return { jobId: i.jobId, status: 'pending', costMicroCents: i.costMicroCents, estimatedCompletionTime: '2030-01-01T00:00:03.000Z', createdAt: '2030-01-01T00:00:00.000Z' };
    },
    async cancelPendingJob() {
      return { refundedMicroCents: 45_000 };
    },
    async stopJobAtDeadline() {
      return { status: 'cancelled', refundedMicroCents: 45_000 };
    },
    async completeJob({ jobId }) {
      return { deliverOutputs: jobId === 'job_rec_delivered' };
    },
    async failJob() {
      return { refundedMicroCents: 45_000 };
    },
    async readJobOutcome() {
      return { status: 'cancelled', refundedMicroCents: 45_000 };
    },
    async endAttempt() {},
    // The planner puts the second route first; for the hedged job it keeps the order and hedges the upstream after 300 ms.
    async planRoutes({ routes, policy }) {
      if (policy.hedge?.enabled) return { order: [1, 0], unhealthy: [], hedgeAfterMs: 300 };
      return { order: routes.map((_, i) => i).reverse(), unhealthy: [{ providerId: routes[0].providerId, reason: 'recorded' }] };
    },
  };
  const provider: GenerationActivities = {
    async startGeneration(args) {
      if (args.jobId === 'job_rec_failed') {
        throw ApplicationFailure.create({ type: 'INJECTED_FAILURE', message: 'permanent', nonRetryable: true });
      }
      if (args.jobId === 'job_rec_routed' || args.jobId === 'job_rec_routed_planned') {
        throw ApplicationFailure.create({ type: 'INJECTED_OUTAGE', message: 'down', nonRetryable: true });
      }
      if (args.jobId === 'job_rec_deadline_running' || args.jobId === 'job_rec_deadline_batch_item') {
        await env.client.workflow.getHandle(jobWorkflowId(args.jobId)).signal(jobStartedSignal, { startedAt: new Date().toISOString() });
        // The running job's generation lasts until its deadline cancels it; the batch item's runs 2 s, past its deadline.
        const until = Date.now() + (args.jobId === 'job_rec_deadline_running' ? 60_000 : 2_000);
        while (Date.now() < until) {
          Context.current().heartbeat();
          await Promise.race([Context.current().cancelled, new Promise((r) => setTimeout(r, 200))]);
        }
      }
      if (args.jobId === 'job_rec_processing') {
        await env.client.workflow.getHandle(jobWorkflowId(args.jobId)).signal(jobStartedSignal, { startedAt: '2030-01-01T00:00:01.000Z' });
        await new Promise<void>((r) => (release = r));
      }
      return { outcome: 'completed', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 1234, width: 1024, height: 1024 }] };
    },
    async checkGeneration() {
      throw new Error('not an upstream');
    },
    async cancelGeneration() {},
  };
  let checks = 0;
  const upstream: GenerationActivities = {
    // The hedged job whose upstream is cancelled mid-check: checked at once, each check taking 3 s.
    async startGeneration(args) {
      return { outcome: 'waiting', upstreamId: 'req_record', nextCheckMs: args.jobId === 'job_rec_routed_hedged_mid_check' ? 10 : 300 };
    },
    async checkGeneration(args) {
      checks += 1;
      if (args.jobId === 'job_rec_routed_hedged_mid_check') await new Promise((r) => setTimeout(r, 3000));
      if (args.jobId === 'job_rec_upstream_timeout' || args.jobId.startsWith('job_rec_routed_hedged') || checks < 2) {
        return { outcome: 'waiting', upstreamId: 'req_record', nextCheckMs: 300 };
      }
      return { outcome: 'completed', upstreamId: 'req_record', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 1234, width: 1024, height: 1024 }] };
    },
    async cancelGeneration() {},
  };
  // Webhook delivery: the first attempt is asked to come back later, the second is delivered; an event for a
  // receiver that is gone ends at once.
  const webhooks: WebhookActivities = {
    async prepareWebhookEvent(i) {
      return { eventId: `msg_${i.jobId}_${i.eventType}${i.jobEventSequence ?? ''}`, firstAttempt: 1, retryScheduleSeconds: [0, 1, 2], attemptTimeoutMs: 5000 };
    },
    async attemptWebhookDelivery(i) {
      if (i.eventId.startsWith('msg_job_rec_gone')) return { outcome: 'gone', statusCode: 410, durationMs: 3 };
      return i.attempt === 1 ? { outcome: 'retry', statusCode: 503, durationMs: 4, retryAfterSeconds: 1 } : { outcome: 'delivered', statusCode: 200, durationMs: 5 };
    },
  };
  // The relay, as a run continued from sequence 2: processing, progress and an attempt event, then the end.
  let relayReads = 0;
  const relay: JobEventRelayActivities = {
    async readJobEventsForWebhooks({ afterSequence }) {
      relayReads += 1;
      if (relayReads === 1) {
        return { events: [3, 4, 5].map((sequence, i) => ({ sequence: afterSequence + sequence - 2, type: ['job.processing', 'job.progress', 'job.attempt'][i] })), finished: false };
      }
      return { events: [{ sequence: afterSequence + 1, type: 'job.completed' }], finished: true };
    },
  };
  // Output delivery: the completed job's first attempt finds the bucket away, the second delivers; another delivery
  // fails until its retry period ends. Both send job.delivered.
  const deliveries: OutputDeliveryActivities = {
    async prepareOutputDelivery({ jobId }) {
      const retryFor = jobId === 'job_rec_delivery_failed' ? 1500 : 60_000;
      return { firstAttempt: 1, giveUpAt: new Date(Date.now() + retryFor).toISOString(), firstBackoffSeconds: 0.5, maxBackoffSeconds: 1, attemptTimeoutSeconds: 60, notify: true };
    },
    async attemptOutputDelivery({ jobId, attempt, final }) {
      if (jobId === 'job_rec_delivered' && attempt > 1) return { outcome: 'delivered' };
      return final ? { outcome: 'failed', reason: 'connect ECONNREFUSED 127.0.0.1:9' } : { outcome: 'retry', reason: 'connect ECONNREFUSED 127.0.0.1:9' };
    },
  };
  const uploads: Pick<UploadActivities, 'expireUpload'> = {
    async expireUpload() {
      return { found: true };
    },
  };

  const upstreamWorker = await Worker.create({ connection: env.nativeConnection, taskQueue: UPSTREAM_QUEUE, activities: upstream });
  const workflowWorker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: bundle,
    activities: { ...jobs, ...webhooks, ...relay, ...uploads, ...deliveries },
  });
  const providerWorker = await Worker.create({ connection: env.nativeConnection, taskQueue: PROVIDER_QUEUE, activities: provider });

  const admit = async (jobId: string) => {
    const op = withStartOperation(jobWorkflowContract, {
      workflowId: jobWorkflowId(jobId),
      taskQueue: TASK_QUEUE,
      args: [input(jobId)],
      workflowIdConflictPolicy: 'FAIL',
      typedSearchAttributes: jobIdentitySearchAttributes(input(jobId)),
    });
    await env.client.workflow.executeUpdateWithStart(admitUpdate, { startWorkflowOperation: op }).catch(() => undefined);
    return op.workflowHandle();
  };

  await workflowWorker.runUntil(() =>
    upstreamWorker.runUntil(() => providerWorker.runUntil(async () => {
      await (await admit('job_rec_completed')).result();
      await (await admit('job_rec_rejected')).result();
      await (await admit('job_rec_failed')).result();
      const processing = await admit('job_rec_processing');
      await new Promise((r) => setTimeout(r, 1000));
      await processing.executeUpdate(cancelUpdate).catch(() => undefined);
      release();
      await processing.result();
      const cancelled = await admit('job_rec_cancelled');
      await cancelled.executeUpdate(cancelUpdate);
      await cancelled.result();
      // An upstream job: a check on the interval, then a callback signal, then completion; and one that times out.
      const upstreamJob = await admit('job_rec_upstream_completed');
      await new Promise((r) => setTimeout(r, 500));
      await upstreamJob.signal(providerCallbackSignal, { state: 'succeeded' });
      await upstreamJob.result();
      await (await admit('job_rec_upstream_timeout')).result();
      await (await admit('job_rec_deadline_pending')).result();
      await (await admit('job_rec_deadline_running')).result();
      await (await admit('job_rec_deadline_batch_item')).result();
      await (await admit('job_rec_routed')).result();
      await (await admit('job_rec_routed_planned')).result();
      await (await admit('job_rec_routed_hedged')).result();
      await (await admit('job_rec_routed_hedged_mid_check')).result();
      const start = <Args extends unknown[], Result>(contract: Parameters<typeof startWorkflow<Args, Result>>[1], workflowId: string, args: Args) =>
        startWorkflow(env.client, contract, { workflowId, taskQueue: TASK_QUEUE, args }).then((handle) => handle.result());
      await start(webhookDeliveryWorkflowContract, webhookWorkflowId('job_rec_webhook', 'job.completed'), [{ jobId: 'job_rec_webhook', eventType: 'job.completed' }]);
      await start(webhookDeliveryWorkflowContract, webhookWorkflowId('job_rec_gone', 'job.failed'), [{ jobId: 'job_rec_gone', eventType: 'job.failed' }]);
      await start(jobEventWebhooksWorkflowContract, jobEventWebhooksWorkflowId('job_rec_relay'), [
        { jobId: 'job_rec_relay', events: ['job.processing', 'job.progress', 'job.attempt'], progressIntervalSeconds: 5, afterSequence: 2, lastProgressSentAtMs: 0 },
      ]);
      await (await admit('job_rec_delivered')).result();
      await env.client.workflow.getHandle(outputDeliveryWorkflowId('job_rec_delivered')).result();
      await start(outputDeliveryWorkflowContract, outputDeliveryWorkflowId('job_rec_delivery_failed'), [{ jobId: 'job_rec_delivery_failed' }]);
      await start(uploadExpiryWorkflowContract, uploadWorkflowId('file_rec_upload'), [{ fileId: 'file_rec_upload', expiresAt: new Date(Date.now() + 1000).toISOString() }]);
    })),
  );

  const workflowRecordings = [
    ...[
      'completed',
      'rejected',
      'failed',
      'processing',
      'cancelled',
      'upstream_completed',
      'upstream_timeout',
      // A job that fails over from one route to the next; one whose routes the planner ordered first.
      'routed',
      'routed_planned',
      // A hedge (the upstream stays queued; the other route finishes first and the upstream is cancelled), and one whose
      // loser is cancelled in the middle of a check.
      'routed_hedged',
      'routed_hedged_mid_check',
      // Completion starts the delivery of the outputs to the customer's bucket.
      'delivered',
      'deadline_pending',
      'deadline_running',
      'deadline_batch_item',
    ].map((name) => [jobWorkflowId(`job_rec_${name}`), `job-${name.replaceAll('_', '-')}.json`]),
    [webhookWorkflowId('job_rec_webhook', 'job.completed'), 'webhook-delivery-retried.json'],
    [webhookWorkflowId('job_rec_gone', 'job.failed'), 'webhook-delivery-gone.json'],
    [jobEventWebhooksWorkflowId('job_rec_relay'), 'job-event-webhooks-continued.json'],
    [uploadWorkflowId('file_rec_upload'), 'upload-expiry.json'],
    [outputDeliveryWorkflowId('job_rec_delivered'), 'output-delivery-retried.json'],
    [outputDeliveryWorkflowId('job_rec_delivery_failed'), 'output-delivery-failed.json'],
  ];
  await mkdir(RECORDED, { recursive: true });
  for (const [workflowId, file] of workflowRecordings) {
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    await writeFile(path.join(RECORDED, file), `${JSON.stringify(historyToObject(history), null, 1)}\n`);
  }
  await env.teardown();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
