/**
 * Replicate predictions through the official `replicate` SDK (https://replicate.com/docs/reference/http):
 * create for an official model (`owner/name`) or a version (`owner/name:version`), get, cancel; webhooks
 * signed per Standard Webhooks with the account's signing secret.
 */
import Replicate, { validateWebhook, type Prediction } from 'replicate';
import { abortError, withTimeout } from '../abort';
import { ProviderError } from '../types';
import { UPSTREAM_ENV, upstreamCredential, upstreamOrigin } from './credentials';
import { errorForStatus, errorForTransport, mentionsContentPolicy } from './errors';
import {
  CallbackRejected,
  type UpstreamAdapter,
  type UpstreamAdapterOptions,
  type UpstreamRef,
  type UpstreamSnapshot,
  type UpstreamState,
} from './types';

/** Webhooks older or newer than this are refused (Standard Webhooks' recommended tolerance). */
const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

const STATES: Record<string, UpstreamState> = {
  starting: 'queued',
  processing: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  canceled: 'cancelled',
  aborted: 'cancelled',
};

/** The last percentage a progress bar printed in the logs (` 45%|████▌     | 9/20`). */
export function progressFromLogs(logs: string | undefined): number | undefined {
  if (!logs) return undefined;
  const matches = [...logs.matchAll(/(\d{1,3})%\|/g)];
  const last = matches.at(-1);
  return last ? Math.min(100, Number(last[1])) : undefined;
}

function lastLogLine(logs: string | undefined): string | undefined {
  const line = logs?.trim().split('\n').at(-1)?.trim();
  return line ? line.slice(0, 200) : undefined;
}

/** `Cancel-After` takes a duration such as `90s` (https://replicate.com/docs/topics/predictions/lifecycle). */
function cancelAfter(deadline: Date): string {
  return `${Math.max(5, Math.ceil((deadline.getTime() - Date.now()) / 1000))}s`;
}

export function createReplicateAdapter(options: UpstreamAdapterOptions): UpstreamAdapter {
  const auth = upstreamCredential('replicate', options.env);
  if (!auth) throw new Error(`${UPSTREAM_ENV.replicate.credential} is not set`);
  const origin = upstreamOrigin('replicate', options.env);
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const baseUrl = origin ? { baseUrl: `${origin}/v1` } : {};
  const client = new Replicate({ auth, ...baseUrl });
  /** A client whose create request carries `Cancel-After`: the SDK has no option for that header. */
  const clientWithDeadline = (deadline: Date) =>
    new Replicate({
      auth,
      ...baseUrl,
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        if (init?.method === 'POST') headers.set('Cancel-After', cancelAfter(deadline));
        return fetch(input, { ...init, headers });
      },
    });
  let webhookSecret: Promise<string> | undefined;

  async function call<T>(what: string, fn: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
    try {
      return await fn(withTimeout(signal, timeoutMs));
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      const response = (error as { response?: Response }).response;
      if (response instanceof Response) {
        const text = error instanceof Error ? error.message.replace(/^Request to \S+ failed with status \d+ [^:]*: /, '') : '';
        throw errorForStatus(`Replicate ${what}`, response.status, detailOf(text), response.headers.get('retry-after'));
      }
      throw errorForTransport(`Replicate ${what}`, error);
    }
  }

  function snapshotOf(prediction: Prediction): UpstreamSnapshot {
    const state = STATES[prediction.status] ?? 'running';
    const snapshot: UpstreamSnapshot = { id: prediction.id, state, stage: lastLogLine(prediction.logs) ?? prediction.status };
    const progress = progressFromLogs(prediction.logs);
    if (progress !== undefined) snapshot.progress = progress;
    if (state === 'succeeded') snapshot.result = prediction.output;
    if (state === 'failed') snapshot.error = failureOf(prediction);
    return snapshot;
  }

  return {
    id: 'replicate',

    async prepareFile(file, signal) {
      if (!file.own) return file.url;
      const { data, contentType, filename } = await file.read(signal);
      const blob = new File([new Uint8Array(data)], filename, { type: contentType });
      const created = await call('file upload', (s) => client.files.create(blob, {}, { signal: s } as never), signal);
      return created.urls.get;
    },

    async submit(submission, signal) {
      const { route } = submission;
      const [model, version] = route.model.split(':');
      const body = {
        input: submission.input,
        ...(version ? { version } : { model }),
        ...(submission.callbackUrl
          ? { webhook: submission.callbackUrl, webhook_events_filter: ['start', 'completed'] as ('start' | 'completed')[] }
          : {}),
      };
      const creator = clientWithDeadline(submission.deadline);
      return snapshotOf(await call('create prediction', (s) => creator.predictions.create({ ...body, signal: s }), signal));
    },

    async status(ref: UpstreamRef, signal) {
      return snapshotOf(await call('get prediction', () => client.predictions.get(ref.id), signal));
    },

    async cancel(ref, signal) {
      try {
        await call('cancel prediction', () => client.predictions.cancel(ref.id), signal);
      } catch (error) {
        // 404: unknown; a finished prediction answers with its final state, which is fine.
        if (error instanceof ProviderError && error.code === 'PROVIDER_REJECTED_INPUT') return;
        throw error;
      }
    },

    async verifyCallback(request, signal) {
      const id = request.headers['webhook-id'];
      const timestamp = request.headers['webhook-timestamp'];
      const signature = request.headers['webhook-signature'];
      if (!id || !timestamp || !signature) throw new CallbackRejected('missing webhook-id, webhook-timestamp or webhook-signature');
      const age = Math.abs(Date.now() / 1000 - Number(timestamp));
      if (!Number.isFinite(age) || age > WEBHOOK_TOLERANCE_SECONDS) throw new CallbackRejected('webhook-timestamp is outside the tolerance');
      webhookSecret ??= secretFrom(options.env, () => call('webhook secret', () => client.webhooks.default.secret.get(), signal)).catch(
        (error: unknown) => {
          webhookSecret = undefined;
          throw error;
        },
      );
      const secret = await webhookSecret;
      const body = request.rawBody.toString('utf8');
      let valid = false;
      try {
        valid = await validateWebhook({ id, timestamp, signature, body, secret });
      } catch {
        valid = false;
      }
      if (!valid) throw new CallbackRejected('the signature does not match');
      let prediction: Partial<Prediction>;
      try {
        prediction = JSON.parse(body) as Partial<Prediction>;
      } catch {
        throw new CallbackRejected('the body is not JSON');
      }
      if (typeof prediction.id !== 'string') throw new CallbackRejected('the body names no prediction');
      return { upstreamId: prediction.id, callbackId: id, ...(prediction.status ? { state: STATES[prediction.status] } : {}) };
    },
  };
}

async function secretFrom(env: NodeJS.ProcessEnv, fetchSecret: () => Promise<{ key: string }>): Promise<string> {
  const configured = env.REPLICATE_WEBHOOK_SECRET?.trim();
  if (configured) return configured;
  return (await fetchSecret()).key;
}

/** The `detail` of a problem-details body (https://replicate.com/docs/reference/http#errors), or the text. */
function detailOf(text: string): string {
  const json = text.replace(/\.$/, '');
  try {
    const body = JSON.parse(json) as { detail?: unknown; title?: unknown };
    if (typeof body.detail === 'string') return body.detail;
    if (typeof body.title === 'string') return body.title;
  } catch {
    // not JSON
  }
  return text;
}

function failureOf(prediction: Prediction): ProviderError {
  const error = typeof prediction.error === 'string' ? prediction.error : JSON.stringify(prediction.error ?? 'failed');
  const message = `Replicate prediction ${prediction.id} failed: ${error.slice(0, 300)}`;
  if (mentionsContentPolicy(error)) return new ProviderError('CONTENT_POLICY_VIOLATION', message, { retryable: false });
  return new ProviderError('PROVIDER_JOB_FAILED', message, { retryable: false });
}
