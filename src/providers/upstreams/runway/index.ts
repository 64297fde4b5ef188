/**
 * Runway's task API through the official `@runwayml/sdk` (https://docs.dev.runwayml.com/api/): `image_to_video`
 * and `text_to_image` create a task, `GET /v1/tasks/{id}` reads it, `DELETE` cancels a running one (or deletes a
 * finished one). Runway sends no webhooks, so tasks are polled. `THROTTLED` (over the organisation's concurrency
 * limit, stored but not yet enqueued) counts as queued.
 */
import RunwayML, { toFile } from '@runwayml/sdk';
import { ProviderError } from '../../types';
import { UPSTREAM_ENV, upstreamCredential, upstreamOrigin } from '../credentials';
import type { InputFile, GenerationSnapshot, GenerationState } from '../../types';
import { type UpstreamAdapter, type UpstreamAdapterOptions, mappingFor } from '../types';
import { callFailure, taskFailure } from './failures';

export { taskFailure } from './failures';

/** One of Runway's own credits (US$0.01, not a catalog credit) in our micro-cents (US$1 = 1,000,000 micro-cents). */
export const RUNWAY_CREDIT_MICRO_CENTS = 10_000;

/** Runway refuses a data: URI of 5 MB or more, counted encoded (https://docs.dev.runwayml.com/assets/inputs/). */
export const DATA_URI_MAX_CHARS = 5 * 1024 * 1024;

const STATES: Record<RunwayML.TaskRetrieveResponse['status'], GenerationState> = {
  PENDING: 'queued',
  THROTTLED: 'queued',
  RUNNING: 'running',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
};

type Task = RunwayML.TaskRetrieveResponse;
type RequestOptions = { signal: AbortSignal; maxRetries?: number };

/** The calls that start a paid task, by the mapping's `operation`. */
const CREATE: Record<string, (client: RunwayML, body: Record<string, unknown>, options: RequestOptions) => Promise<{ id: string }>> = {
  image_to_video: (client, body, options) => client.imageToVideo.create(body as unknown as RunwayML.ImageToVideoCreateParams, options),
  text_to_image: (client, body, options) => client.textToImage.create(body as unknown as RunwayML.TextToImageCreateParams, options),
};

/** The final credits of a finished task (`cost`), in micro-cents; a running task only has `estimatedCost`. */
function costOf(task: Task): number | undefined {
  const credits = 'cost' in task ? task.cost?.credits : undefined;
  return typeof credits === 'number' && Number.isFinite(credits) && credits >= 0 ? Math.round(credits * RUNWAY_CREDIT_MICRO_CENTS) : undefined;
}

/** Runway's `progress` is a fraction (0..1) of a running task. */
function progressOf(task: Task): number | undefined {
  if (task.status !== 'RUNNING' || typeof task.progress !== 'number' || !Number.isFinite(task.progress)) return undefined;
  return Math.round(Math.min(1, Math.max(0, task.progress)) * 100);
}

export function snapshotOf(task: Task): GenerationSnapshot {
  const snapshot: GenerationSnapshot = { id: task.id, state: STATES[task.status] ?? 'running', stage: task.status };
  const progress = progressOf(task);
  if (progress !== undefined) snapshot.progress = progress;
  // The whole task is the result: the catalog's outputs path is `output[]`.
  if (task.status === 'SUCCEEDED') snapshot.result = task;
  if (task.status === 'FAILED') snapshot.error = taskFailure(task.id, task.failure, task.failureCode);
  const cost = costOf(task);
  if (cost !== undefined) snapshot.upstreamCostMicroCents = cost;
  return snapshot;
}

export function createRunwayAdapter(options: UpstreamAdapterOptions): UpstreamAdapter {
  const apiKey = upstreamCredential('runway', options.env);
  if (!apiKey) throw new Error(`${UPSTREAM_ENV.runway.credential} is not set`);
  const client = new RunwayML({
    apiKey,
    // Always passed (null = Runway's own origin): left undefined, the SDK would read RUNWAYML_BASE_URL from process.env.
    baseURL: upstreamOrigin('runway', options.env) ?? null,
    timeout: options.requestTimeoutMs ?? 30_000,
  });

  /** Our own file inline when it fits in a data: URI, else through the SDK's ephemeral upload (a `runway://` URI). */
  async function ownFile(file: InputFile, signal: AbortSignal): Promise<string> {
    const { data, contentType, filename } = await file.read(signal);
    const dataUri = `data:${contentType};base64,${data.toString('base64')}`;
    if (dataUri.length < DATA_URI_MAX_CHARS) return dataUri;
    try {
      const upload = await client.uploads.createEphemeral({ file: await toFile(data, filename, { type: contentType }) }, { signal });
      return upload.uri;
    } catch (error) {
      throw callFailure('upload', error, signal);
    }
  }

  return {
    id: 'runway',

    // Runway fetches https URLs itself (no redirects followed, a real Content-Type required).
    async prepareFile(file, signal) {
      return file.own ? ownFile(file, signal) : file.url;
    },

    async submit(submission, signal) {
      const { input } = submission;
      const mapping = mappingFor('runway', submission.mapping);
      const create = mapping.operation ? CREATE[mapping.operation] : undefined;
      if (!create) {
        throw new ProviderError('PROVIDER_REJECTED_INPUT', `Runway has no operation "${mapping.operation ?? ''}" in this adapter`, { retryable: false });
      }
      try {
        // maxRetries 0: Runway takes no idempotency key, so a retried create could start (and charge) a second task.
        const created = await create(client, { ...input, model: mapping.model }, { signal, maxRetries: 0 });
        return { id: created.id, state: 'queued', stage: 'PENDING' };
      } catch (error) {
        throw callFailure('submit', error, signal);
      }
    },

    async status(ref, signal) {
      try {
        return snapshotOf(await client.tasks.retrieve(ref.id, { signal }));
      } catch (error) {
        // Runway forgets a cancelled or deleted task ("aborted and deleted tasks will not be able to be fetched again").
        if (!signal.aborted && error instanceof RunwayML.NotFoundError) return { id: ref.id, state: 'cancelled', stage: 'DELETED' };
        throw callFailure('status', error, signal);
      }
    },

    async cancel(ref, signal) {
      try {
        await client.tasks.delete(ref.id, { signal });
      } catch (error) {
        if (!signal.aborted && error instanceof RunwayML.NotFoundError) return;
        throw callFailure('cancel', error, signal);
      }
    },
  };
}
