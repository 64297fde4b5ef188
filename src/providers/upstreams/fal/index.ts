/**
 * fal's queue API through the official `@fal-ai/client` (https://docs.fal.ai/model-apis/model-endpoints/queue):
 * submit with a webhook URL, status with queue position and logs, result, cancel; our own files go to fal's
 * storage with the client's upload. Webhooks are verified against fal's JWKS and our account id, `FAL_USER_ID`
 * (./webhooks.ts); without it no webhooks are asked for and jobs are polled.
 *
 * A request that failed is COMPLETED in the status like one that succeeded (with `error` and `error_type`
 * when fal knows why); its result request then answers with the original error status and body: that answer
 * is the generation's outcome, not a failure of ours to read it (./failures.ts).
 */
import { createFalClient, type FalClient, type QueueStatus } from '@fal-ai/client';
import { ProviderError } from '../../types';
import { UPSTREAM_CALLBACK_ENV, UPSTREAM_ENV, upstreamCredential, upstreamOrigin } from '../credentials';
import type { GenerationRef, GenerationSnapshot } from '../../types';
import { type UpstreamAdapter, type UpstreamAdapterOptions, mappingFor } from '../types';
import { createCostLookup } from './cost';
import { callFailure, generationFailure, isGenerationOutcome, type CompletedError } from './failures';
import { FalAnswer, falFetch, type FalTransport } from './transport';
import { createWebhookVerifier, falJwksUrl } from './webhooks';

export { FAL_JWKS_URL, falJwksUrl } from './webhooks';
export { redirectToOrigin } from './transport';

/** Answers to a cancel that mean there is nothing left to stop: already completed (400), gone or unknown (404, 410, 422). */
const NOTHING_TO_CANCEL = new Set([400, 404, 410, 422]);
/** The client refuses an `x-fal-request-timeout` of one second or less. */
const MIN_START_TIMEOUT_SECONDS = 2;

/** Images fal's safety checker blacked out (`has_nsfw_concepts`, e.g. FLUX): a refusal, not an output. */
function flaggedImages(result: unknown): number {
  const flags = (result as { has_nsfw_concepts?: unknown } | null)?.has_nsfw_concepts;
  return Array.isArray(flags) ? flags.filter((flag) => flag === true).length : 0;
}

function lastLogLine(status: QueueStatus): string | undefined {
  const logs = 'logs' in status && Array.isArray(status.logs) ? status.logs : [];
  const line = logs.at(-1)?.message?.trim();
  return line ? line.slice(0, 200) : undefined;
}

/** Seconds left until the deadline: fal drops the request, unbilled, if it has not started by then. */
function startTimeoutOf(deadline: Date): number | undefined {
  const seconds = Math.floor((deadline.getTime() - Date.now()) / 1000);
  return seconds >= MIN_START_TIMEOUT_SECONDS ? seconds : undefined;
}

export function createFalAdapter(options: UpstreamAdapterOptions): UpstreamAdapter {
  const credentials = upstreamCredential('fal', options.env);
  if (!credentials) throw new Error(`${UPSTREAM_ENV.fal.credential} is not set`);
  const transport: FalTransport = { origin: upstreamOrigin('fal', options.env), timeoutMs: options.requestTimeoutMs ?? 30_000 };
  const userId = options.env[UPSTREAM_CALLBACK_ENV.falUserId]?.trim();
  const verifyWebhook = userId ? createWebhookVerifier(falJwksUrl(options.env), transport.timeoutMs, userId) : undefined;
  const costOf = createCostLookup(options.env.FAL_ADMIN_KEY?.trim() || undefined, transport);

  /** A client for one call: cheap to make, and its fetch carries that call's signal (the upload takes none). */
  const clientFor = (signal: AbortSignal): FalClient =>
    createFalClient({ credentials, suppressLocalCredentialsWarning: true, fetch: falFetch(transport, signal) });

  async function call<T>(what: string, signal: AbortSignal, fn: (fal: FalClient) => Promise<T>, creating = false): Promise<T> {
    try {
      return await fn(clientFor(signal));
    } catch (error) {
      throw callFailure(what, error, signal, creating);
    }
  }

  async function succeeded(id: string, result: unknown, signal: AbortSignal): Promise<GenerationSnapshot> {
    const flagged = flaggedImages(result);
    if (flagged > 0) {
      const error = new ProviderError('CONTENT_POLICY_VIOLATION', `fal's safety checker flagged ${flagged} of the images`, { retryable: false });
      return { id, state: 'failed', stage: 'COMPLETED', error };
    }
    const cost = await costOf(id, signal);
    return { id, state: 'succeeded', stage: 'COMPLETED', result, ...(cost !== undefined ? { upstreamCostMicroCents: cost } : {}) };
  }

  async function completed(ref: GenerationRef, reported: CompletedError, signal: AbortSignal): Promise<GenerationSnapshot> {
    if (reported.error_type === 'client_cancelled') return { id: ref.id, stage: 'COMPLETED', ...generationFailure(undefined, reported) };
    let data: unknown;
    try {
      ({ data } = await clientFor(signal).queue.result(mappingFor('fal', ref.mapping).model, { requestId: ref.id, abortSignal: signal }));
    } catch (error) {
      if (!signal.aborted && error instanceof FalAnswer && isGenerationOutcome(error, reported)) {
        return { id: ref.id, stage: 'COMPLETED', ...generationFailure(error, reported) };
      }
      throw callFailure('result', error, signal);
    }
    return succeeded(ref.id, data, signal);
  }

  return {
    id: 'fal',

    async prepareFile(file, signal) {
      if (!file.own) return file.url;
      const { data, contentType, filename } = await file.read(signal);
      const blob = new File([new Uint8Array(data)], filename, { type: contentType });
      return call('storage upload', signal, (fal) => fal.storage.upload(blob));
    },

    async submit(submission, signal) {
      const startTimeout = startTimeoutOf(submission.deadline);
      const queued = await call(
        'submit',
        signal,
        (fal) =>
          fal.queue.submit(mappingFor('fal', submission.mapping).model, {
            input: submission.input,
            abortSignal: signal,
            ...(submission.callbackUrl ? { webhookUrl: submission.callbackUrl } : {}),
            ...(startTimeout !== undefined ? { startTimeout } : {}),
          }),
        true,
      );
      const position = typeof queued.queue_position === 'number' ? { queuePosition: queued.queue_position } : {};
      return { id: queued.request_id, state: 'queued', stage: 'IN_QUEUE', ...position };
    },

    async status(ref, signal) {
      const status = await call('status', signal, (fal) => fal.queue.status(mappingFor('fal', ref.mapping).model, { requestId: ref.id, logs: true, abortSignal: signal }));
      switch (status.status) {
        case 'IN_QUEUE':
          return { id: ref.id, state: 'queued', stage: 'IN_QUEUE', ...(typeof status.queue_position === 'number' ? { queuePosition: status.queue_position } : {}) };
        case 'COMPLETED':
          return completed(ref, status as CompletedError, signal);
        default:
          return { id: ref.id, state: 'running', stage: lastLogLine(status) ?? status.status };
      }
    },

    async cancel(ref, signal) {
      try {
        await clientFor(signal).queue.cancel(mappingFor('fal', ref.mapping).model, { requestId: ref.id, abortSignal: signal });
      } catch (error) {
        if (!signal.aborted && error instanceof FalAnswer && NOTHING_TO_CANCEL.has(error.status)) return;
        throw callFailure('cancel', error, signal);
      }
    },

    ...(verifyWebhook ? { verifyCallback: verifyWebhook } : {}),
  };
}
