/**
 * GET /metrics after a few jobs, on the real stack: every counter by its exact value, histograms by their count, and
 * no label that could grow without bound.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPayloadConverter } from '@temporalio/common';
import { workflowMetadataQuery } from '@temporalio/workflow';
import { formatDollars } from '../../../src/shared/money';
import { startMetricsServer, type MetricsServer } from '../../../src/observability/metricsServer';
import { jobWorkflowId } from '../../../src/contracts/workflows/job';
import { startHttpsReceiver, type HttpsReceiver } from '../../support/httpsReceiver';
import { scrape, valueOf, type Sample } from '../../support/prometheusText';
import { createTestAccount, eventually, startTestStack, type TestAccount, type TestStack } from '../../support/stack';
import { get, imageJob, post, TEXT_TO_IMAGE } from '../jobs/helpers';

const PENDING_MODEL = 'lumina/lumi-xl/text-to-image';

let stack: TestStack;
let account: TestAccount;
let poor: TestAccount;
let receiver: HttpsReceiver;
let workerMetrics: MetricsServer;
let api: Sample[];
let worker: Sample[];
const costs: Record<string, number> = {};

async function submit(who: TestAccount, body: Record<string, unknown>) {
  return post(`${stack.url}/v1/jobs/submit`, who.apiKey, body);
}

async function finished(jobId: string): Promise<{ status: string }> {
  return eventually(async () => {
    const res = await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey);
    return ['completed', 'failed', 'cancelled'].includes(res.body.status) ? res.body : undefined;
  }, 30_000);
}

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  // No lumina worker: its job stays pending until cancelled.
  stack = await startTestStack({ providers: ['pixelforge'], webhookCa: receiver.caPem });
  account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
  poor = await createTestAccount(stack.prisma, { creditsMicroCents: 1n });
  workerMetrics = await startMetricsServer({ registry: stack.workers.metrics.registry, host: '127.0.0.1', port: 0 });

  const completed = [
    await submit(account, { ...imageJob(), webhookUrl: `${receiver.baseUrl}/hook` }),
    await submit(account, imageJob({ prompt: 'a second lighthouse' })),
  ];
  const failed = await submit(account, imageJob({ prompt: 'a storm [fail:permanent]' }));
  const pending = await submit(account, { model: PENDING_MODEL, input: { prompt: 'left waiting' } });
  for (const res of [...completed, failed, pending]) {
    expect(res.status).toBe(201);
    costs[res.body.jobId] = res.body.costMicroCents;
  }
  expect((await submit(poor, imageJob())).status).toBe(402);
  expect((await submit(account, { model: 'nobody/nothing/text-to-image', input: { prompt: 'x' } })).status).toBe(404);
  expect((await post(`${stack.url}/v1/jobs/${pending.body.jobId}/cancel`, account.apiKey)).status).toBe(200);

  expect((await finished(completed[0].body.jobId)).status).toBe('completed');
  expect((await finished(completed[1].body.jobId)).status).toBe('completed');
  expect((await finished(failed.body.jobId)).status).toBe('failed');
  await eventually(async () => (receiver.requests.length === 1 ? true : undefined), 30_000);

  const presign = await post(`${stack.url}/v1/uploads/presign`, account.apiKey, { filename: 'in.png', contentType: 'image/png', size: 1234 });
  expect(presign.status).toBe(200);

  // Webhook attempts are counted once recorded; the delivery's status lands just after the receiver answers.
  await eventually(async () => (valueOf(await scrape(workerMetrics.url), 'genmedia_webhook_attempts_total') === 1 ? true : undefined), 15_000);
  api = await scrape(`${stack.url}/metrics`);
  worker = await scrape(workerMetrics.url);
}, 120_000);

afterAll(async () => {
  await workerMetrics?.close();
  await stack?.stop();
  await receiver?.close();
});

const forge = { model: TEXT_TO_IMAGE, provider: 'pixelforge' };

describe('API /metrics', () => {
  it('counts submissions by model and provider, and rejections by code', () => {
    expect(valueOf(api, 'genmedia_jobs_submitted_total', forge)).toBe(4);
    expect(valueOf(api, 'genmedia_jobs_submitted_total', { model: PENDING_MODEL, provider: 'lumina' })).toBe(1);
    // A model that does not resolve never becomes a label.
    expect(valueOf(api, 'genmedia_jobs_submitted_total', { model: 'unresolved', provider: 'unresolved' })).toBe(1);
    expect(valueOf(api, 'genmedia_jobs_rejected_total', { ...forge, code: 'INSUFFICIENT_BALANCE' })).toBe(1);
    expect(valueOf(api, 'genmedia_jobs_rejected_total', { model: 'unresolved', code: 'MODEL_NOT_FOUND' })).toBe(1);
    expect(valueOf(api, 'genmedia_jobs_rejected_total')).toBe(2);
  });

  it('times admissions and requests by route template and status', () => {
    expect(valueOf(api, 'genmedia_job_admission_duration_seconds_count', { ...forge, outcome: 'admitted' })).toBe(3);
    expect(valueOf(api, 'genmedia_job_admission_duration_seconds_count', { ...forge, outcome: 'refused' })).toBe(1);
    expect(valueOf(api, 'genmedia_http_request_duration_seconds_count', { method: 'POST', route: '/v1/jobs/submit', status_code: '201' })).toBe(4);
    expect(valueOf(api, 'genmedia_http_request_duration_seconds_count', { method: 'POST', route: '/v1/jobs/submit', status_code: '402' })).toBe(1);
    expect(valueOf(api, 'genmedia_http_request_duration_seconds_count', { method: 'POST', route: '/v1/jobs/:jobId/cancel', status_code: '200' })).toBe(1);
    expect(valueOf(api, 'genmedia_http_request_duration_seconds_count', { method: 'GET', route: '/v1/jobs/:jobId' })).toBeGreaterThanOrEqual(3);
  });

  it('counts presigned uploads and their declared bytes', () => {
    expect(valueOf(api, 'genmedia_upload_presigns_total', { content_type: 'image/png' })).toBe(1);
    expect(valueOf(api, 'genmedia_upload_declared_bytes_total', { content_type: 'image/png' })).toBe(1234);
  });

  it("samples each queue's backlog from Temporal", () => {
    const queues = api.filter((s) => s.name === 'genmedia_task_queue_backlog').map((s) => s.labels.task_queue);
    expect(queues).toContain(stack.config.temporal.jobsTaskQueue);
    expect(queues).toContain(`${stack.config.temporal.providerTaskQueuePrefix}pixelforge`);
    expect(queues).toContain(`${stack.config.temporal.providerTaskQueuePrefix}lumina`);
  });

  it('answers only the operator network or a bearer token', async () => {
    const { startTestApi } = await import('../../support/api');
    const guarded = await startTestApi({ METRICS_BEARER_TOKEN: 'scrape-token-0123456789' });
    try {
      expect((await fetch(`${guarded.url}/metrics`)).status).toBe(403);
      const ok = await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer scrape-token-0123456789' } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    } finally {
      await guarded.stop();
    }
  });
});

describe('workflow worker metrics', () => {
  it('counts admissions, outcomes and money once per job', () => {
    const [done1, done2, failedJob, cancelledJob] = Object.values(costs);
    expect(valueOf(worker, 'genmedia_jobs_admitted_total', forge)).toBe(3);
    expect(valueOf(worker, 'genmedia_jobs_admitted_total', { provider: 'lumina' })).toBe(1);
    expect(valueOf(worker, 'genmedia_jobs_completed_total', forge)).toBe(2);
    expect(valueOf(worker, 'genmedia_jobs_failed_total', { ...forge, code: 'INJECTED_FAILURE' })).toBe(1);
    expect(valueOf(worker, 'genmedia_jobs_cancelled_total', { provider: 'lumina' })).toBe(1);
    expect(valueOf(worker, 'genmedia_charged_micro_cents_total')).toBe(done1 + done2 + failedJob + cancelledJob);
    expect(valueOf(worker, 'genmedia_refunded_micro_cents_total', { reason: 'failed' })).toBe(failedJob);
    expect(valueOf(worker, 'genmedia_refunded_micro_cents_total', { reason: 'cancelled' })).toBe(cancelledJob);
  });

  it('times queueing, processing and the whole job', () => {
    expect(valueOf(worker, 'genmedia_job_queued_seconds_count', forge)).toBe(3);
    expect(valueOf(worker, 'genmedia_job_processing_seconds_count', { ...forge, status: 'completed' })).toBe(2);
    expect(valueOf(worker, 'genmedia_job_processing_seconds_count', { ...forge, status: 'failed' })).toBe(1);
    expect(valueOf(worker, 'genmedia_job_end_to_end_seconds_count', { status: 'completed' })).toBe(2);
    expect(valueOf(worker, 'genmedia_job_end_to_end_seconds_count', { status: 'failed' })).toBe(1);
    expect(valueOf(worker, 'genmedia_job_end_to_end_seconds_count', { status: 'cancelled' })).toBe(1);
  });

  it("scores each completed job's time against what its submit promised, and nothing else", () => {
    expect(valueOf(worker, 'genmedia_eta_error_ratio_count', forge)).toBe(2);
    expect(valueOf(worker, 'genmedia_eta_error_ratio_count')).toBe(2);
    expect(valueOf(worker, 'genmedia_eta_error_ratio_sum', forge)).toBeGreaterThan(0);
    // Each of the two kept or missed its 90th percentile.
    expect(valueOf(worker, 'genmedia_eta_p90_outcomes_total', forge)).toBe(2);
  });

  it('counts each job attempt on its route by outcome, none of them a failover here', () => {
    expect(valueOf(worker, 'genmedia_route_attempts_total', { provider: 'pixelforge', outcome: 'succeeded', role: 'first' })).toBe(2);
    expect(valueOf(worker, 'genmedia_route_attempts_total', { provider: 'pixelforge', outcome: 'failed', role: 'first' })).toBe(1);
    expect(valueOf(worker, 'genmedia_route_attempts_total', { role: 'failover' })).toBe(0);
  });

  it('counts webhook attempts and deliveries by outcome', () => {
    expect(valueOf(worker, 'genmedia_webhook_attempts_total', { outcome: 'delivered' })).toBe(1);
    expect(valueOf(worker, 'genmedia_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(valueOf(worker, 'genmedia_webhook_attempt_duration_seconds_count')).toBe(1);
  });
});

describe('the Temporal UI tells the job story', () => {
  it("gives the job workflow a summary and details, each activity a summary, and the status as current details", async () => {
    const [jobId] = Object.keys(costs);
    const handle = stack.api.deps.temporal.workflow.getHandle(jobWorkflowId(jobId));
    const described = await handle.describe();
    expect(await described.staticSummary()).toBe(`${TEXT_TO_IMAGE} · ${formatDollars(costs[jobId])}`);
    const details = await described.staticDetails();
    expect(details).toContain(`**Job** \`${jobId}\``);
    expect(details).toContain(`**Account** \`${account.accountId}\``);
    expect(details).toContain(`on provider \`pixelforge\``);

    const history = await handle.fetchHistory();
    const summaries = (history.events ?? [])
      // The admission runs as a local activity: a marker in the history, with its summary like any activity's.
      .filter((e) => e.activityTaskScheduledEventAttributes || e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
      .map((e) => (e.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary) : null));
    expect(summaries).toEqual([
      'Charge the account and create the pending job',
      'Generate with pixelforge',
      'Attempt 1 on pixelforge succeeded; record 1 output(s); job completed',
    ]);
    const metadata = await handle.query(workflowMetadataQuery);
    expect(metadata.currentDetails).toBe('**Status** completed');
  });
});

describe('label cardinality', () => {
  const ID_LIKE = [
    /^(job|acct|key|req|upl|file|whk|evt|msg)_/i,
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i,
    /[0-9a-f]{16,}/i,
    /\d{6,}/,
  ];
  /** Labels whose values come from configuration (task-queue names) or are numbers by definition. */
  const CONFIGURED = new Set(['task_queue', 'le', 'quantile']);

  it('no label value of either endpoint looks like an id', () => {
    const offenders = [...api, ...worker].flatMap((s) =>
      Object.entries(s.labels)
        .filter(([key, value]) => !CONFIGURED.has(key) && ID_LIKE.some((pattern) => pattern.test(value)))
        .map(([key, value]) => `${s.name}{${key}="${value}"}`),
    );
    expect(offenders).toEqual([]);
  });

  it('task-queue labels name only the configured queues', () => {
    const { jobsTaskQueue, providerTaskQueuePrefix } = stack.config.temporal;
    for (const s of api.filter((x) => x.labels.task_queue !== undefined)) {
      expect(s.labels.task_queue === jobsTaskQueue || s.labels.task_queue.startsWith(providerTaskQueuePrefix)).toBe(true);
    }
  });

  it('every job label names a catalog model and provider', async () => {
    const models = new Set((await stack.prisma.model.findMany({ select: { slug: true } })).map((m) => m.slug));
    const providers = new Set((await stack.prisma.provider.findMany({ select: { id: true } })).map((p) => p.id));
    for (const s of [...api, ...worker]) {
      if (s.labels.model !== undefined && s.labels.model !== 'unresolved') expect(models.has(s.labels.model)).toBe(true);
      if (s.labels.provider !== undefined && s.labels.provider !== 'unresolved') expect(providers.has(s.labels.provider)).toBe(true);
    }
  });
});
