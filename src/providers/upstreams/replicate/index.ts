/**
 * Replicate predictions through the official `replicate` client (https://replicate.com/docs/reference/http):
 * create for an official model (`owner/name`) or a version (`owner/name:version`) with a `Cancel-After`
 * deadline and a webhook, get, cancel; our own files go to Replicate's files API. Webhooks are signed per
 * Standard Webhooks with the account's signing secret (./webhooks.ts). Replicate reports no price.
 */
import type { Prediction } from 'replicate';
import { ProviderError } from '../../types';
import { UPSTREAM_CALLBACK_ENV, UPSTREAM_ENV, upstreamCredential, upstreamOrigin } from '../credentials';
import { type UpstreamAdapter, type UpstreamAdapterOptions, type UpstreamMapping, mappingFor } from '../types';
import { snapshotOf } from './predictions';
import { answeredStatus, callReplicate, isApiResource, type ReplicateTransport } from './transport';
import { createSecretSource, createWebhookVerifier } from './webhooks';

export { replicateBaseUrl } from './transport';
export { progressOf } from './predictions';
export { WEBHOOK_TOLERANCE_SECONDS } from './webhooks';

/** Webhooks when the prediction starts and when it ends (succeeded, failed or canceled). */
const WEBHOOK_EVENTS: ('start' | 'completed')[] = ['start', 'completed'];
/** Replicate's smallest `Cancel-After` (https://api.replicate.com/openapi.json, `Cancel-After` header). */
const MIN_CANCEL_AFTER_SECONDS = 5;

/** `Cancel-After` for a deadline: whole seconds from now, with the `s` unit (`"3540s"`). */
export function cancelAfterOf(deadline: Date, now = Date.now()): string {
  return `${Math.max(MIN_CANCEL_AFTER_SECONDS, Math.ceil((deadline.getTime() - now) / 1000))}s`;
}

/** `owner/name` runs the official model; `owner/name:version` runs that version. */
function target(mapping: UpstreamMapping): { model: string } | { version: string } {
  const [model, version] = mapping.model.split(':');
  return version ? { version } : { model };
}

export function createReplicateAdapter(options: UpstreamAdapterOptions): UpstreamAdapter {
  const auth = upstreamCredential('replicate', options.env);
  if (!auth) throw new Error(`${UPSTREAM_ENV.replicate.credential} is not set`);
  const transport: ReplicateTransport = { auth, origin: upstreamOrigin('replicate', options.env), timeoutMs: options.requestTimeoutMs ?? 30_000 };
  const secretOf = createSecretSource(options.env[UPSTREAM_CALLBACK_ENV.replicateWebhookSecret], async (signal) => {
    const secret = await callReplicate(transport, 'webhook secret', signal, (client) => client.webhooks.default.secret.get({ signal }));
    return secret.key;
  });

  const read = (id: string, signal: AbortSignal) =>
    callReplicate(transport, 'get prediction', signal, (client) => client.predictions.get(id, { signal })).catch((error: unknown) => {
      if (answeredStatus(error) === 404) {
        // A prediction this token cannot see: lost, like a dropped connection; the job's deadline ends the waiting.
        throw new ProviderError('PROVIDER_UNAVAILABLE', `Replicate does not know prediction ${id}`, { retryable: true });
      }
      throw error;
    });

  return {
    id: 'replicate',

    async prepareFile(file, signal) {
      if (!file.own) return file.url;
      const { data, contentType, filename } = await file.read(signal);
      const blob = new File([new Uint8Array(data)], filename, { type: contentType });
      const created = await callReplicate(transport, 'file upload', signal, (client) => client.files.create(blob, {}, { signal }));
      // The file's API URL is what the client itself puts into inputs for an uploaded file.
      return created.urls.get;
    },

    async submit(submission, signal) {
      const webhook = submission.callbackUrl ? { webhook: submission.callbackUrl, webhook_events_filter: WEBHOOK_EVENTS } : {};
      const prediction: Prediction = await callReplicate(
        transport,
        'create prediction',
        signal,
        (client) => client.predictions.create({ ...target(mappingFor('replicate', submission.mapping)), input: submission.input, ...webhook, signal }),
        { creating: true, headers: { 'Cancel-After': cancelAfterOf(submission.deadline) } },
      );
      return snapshotOf(prediction);
    },

    async status(ref, signal) {
      return snapshotOf(await read(ref.id, signal));
    },

    async cancel(ref, signal) {
      try {
        // A finished prediction answers 200 with its final state: nothing to do.
        await callReplicate(transport, 'cancel prediction', signal, (client) => client.predictions.cancel(ref.id, { signal }));
      } catch (error) {
        if (answeredStatus(error) === 404) return;
        throw error;
      }
    },

    outputHeaders(url) {
      // Files served by the API itself need the token; outputs on replicate.delivery are public.
      return isApiResource(url, transport.origin) ? { authorization: `Bearer ${auth}` } : undefined;
    },

    verifyCallback: createWebhookVerifier(secretOf),
  };
}
