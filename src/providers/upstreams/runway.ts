/**
 * Runway tasks through the official `@runwayml/sdk` (https://docs.dev.runwayml.com/api/): image-to-video and
 * text-to-image create a task; a task is read with GET and cancelled (or deleted) with DELETE. Runway sends no
 * webhooks, so tasks are polled. `THROTTLED` (over the organisation's concurrency) counts as queued.
 */
import RunwayML from '@runwayml/sdk';
import { abortError } from '../abort';
import { ProviderError } from '../types';
import { UPSTREAM_ENV, upstreamCredential, upstreamOrigin } from './credentials';
import { errorForStatus, errorForTransport } from './errors';
import type { UpstreamAdapter, UpstreamAdapterOptions, UpstreamSnapshot, UpstreamState } from './types';

/** What a Runway credit costs, in our micro-cents (US$0.01 a credit, https://docs.dev.runwayml.com/guides/pricing/). */
const MICRO_CENTS_PER_CREDIT = 10_000;

const STATES: Record<string, UpstreamState> = {
  PENDING: 'queued',
  THROTTLED: 'queued',
  RUNNING: 'running',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
};

type Task = Awaited<ReturnType<RunwayML['tasks']['retrieve']>>;

/** A failed task, by its documented failure code (https://docs.dev.runwayml.com/errors/task-failures/). */
export function taskFailure(failure: string, failureCode: string | undefined, id: string): ProviderError {
  const code = failureCode ?? '';
  const message = `Runway task ${id} failed${code ? ` (${code})` : ''}: ${failure.slice(0, 300)}`;
  if (/SAFETY/.test(code)) return new ProviderError('CONTENT_POLICY_VIOLATION', message, { retryable: false });
  if (code.startsWith('INPUT_PREPROCESSING')) return new ProviderError('PROVIDER_REJECTED_INPUT', message, { retryable: false });
  return new ProviderError('PROVIDER_JOB_FAILED', message, { retryable: false });
}

export function createRunwayAdapter(options: UpstreamAdapterOptions): UpstreamAdapter {
  const apiKey = upstreamCredential('runway', options.env);
  if (!apiKey) throw new Error(`${UPSTREAM_ENV.runway.credential} is not set`);
  const origin = upstreamOrigin('runway', options.env);
  const client = new RunwayML({
    apiKey,
    // Passed explicitly (null = Runway's own): the SDK would otherwise read RUNWAYML_BASE_URL from process.env itself.
    baseURL: origin ?? null,
    timeout: options.requestTimeoutMs ?? 30_000,
  });

  function classify(error: unknown, signal: AbortSignal): unknown {
    if (signal.aborted) return abortError(signal);
    if (error instanceof RunwayML.APIConnectionError) return errorForTransport('Runway', error);
    if (error instanceof RunwayML.APIError && typeof error.status === 'number') {
      const body = error.error as { error?: string; issues?: { message?: string }[] } | undefined;
      const detail = [body?.error, ...(body?.issues ?? []).map((issue) => issue.message)].filter(Boolean).join('; ') || error.message;
      return errorForStatus('Runway', error.status, detail, error.headers?.get('retry-after'));
    }
    return error;
  }

  function snapshotOf(task: Task): UpstreamSnapshot {
    const state = STATES[task.status] ?? 'running';
    const snapshot: UpstreamSnapshot = { id: task.id, state, stage: task.status };
    if (task.status === 'RUNNING' && typeof task.progress === 'number') snapshot.progress = Math.round(task.progress * 100);
    if (task.status === 'SUCCEEDED') snapshot.result = task.output;
    if (task.status === 'FAILED') snapshot.error = taskFailure(task.failure, task.failureCode, task.id);
    const cost = 'cost' in task ? task.cost?.credits : undefined;
    if (typeof cost === 'number') snapshot.upstreamCostMicroCents = cost * MICRO_CENTS_PER_CREDIT;
    return snapshot;
  }

  return {
    id: 'runway',

    // Runway fetches https URLs itself; our own files go inline as data URIs (documented up to 5 MB for images).
    async prepareFile(file, signal) {
      if (!file.own) return file.url;
      const { data, contentType } = await file.read(signal);
      return `data:${contentType};base64,${data.toString('base64')}`;
    },

    async submit(submission, signal) {
      const { route } = submission;
      const body = { ...submission.input, model: route.model };
      // maxRetries 0: a retried create could start (and charge) a second task.
      const request = { signal, maxRetries: 0 };
      let created: { id: string };
      try {
        if (route.operation === 'image_to_video') {
          created = await client.imageToVideo.create(body as unknown as RunwayML.ImageToVideoCreateParams, request);
        } else if (route.operation === 'text_to_image') {
          created = await client.textToImage.create(body as unknown as RunwayML.TextToImageCreateParams, request);
        } else {
          throw new ProviderError('PROVIDER_REJECTED_INPUT', `Runway operation ${route.operation} is not supported`, { retryable: false });
        }
      } catch (error) {
        throw classify(error, signal);
      }
      return { id: created.id, state: 'queued', stage: 'PENDING' };
    },

    async status(ref, signal) {
      try {
        return snapshotOf(await client.tasks.retrieve(ref.id, { signal }));
      } catch (error) {
        throw classify(error, signal);
      }
    },

    async cancel(ref, signal) {
      try {
        await client.tasks.delete(ref.id, { signal });
      } catch (error) {
        if (error instanceof RunwayML.NotFoundError) return;
        throw classify(error, signal);
      }
    },
  };
}
