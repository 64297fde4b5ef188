/**
 * OpenAI's Images API through the official `openai` SDK (https://platform.openai.com/docs/api-reference/images/create).
 * Generation is synchronous: `images.generate` answers with the images as base64 and the token usage, so `submit`
 * returns the finished generation. OpenAI gives such a generation no id of its own; the snapshot id is the request's
 * `x-request-id` (what OpenAI support asks for), or our job id and the answer's `created` time without one.
 * Nothing can be fetched again or cancelled afterwards, so the last few answers are kept in memory: a retry of the
 * same activity on this worker (the outputs could not be stored, say) still finds its images; otherwise `status`
 * fails the job with PROVIDER_JOB_FAILED (refunded).
 * Video is not offered: OpenAI shut the Videos API (Sora 2) down on 2026-09-24, although the SDK still has `videos`.
 */
import OpenAI, { toFile } from 'openai';
import { parseRetryAfter } from '../../../lib/retryAfter';
import { abortError } from '../../abort';
import { ProviderError } from '../../types';
import { UPSTREAM_ENV, upstreamCredential, upstreamOrigin } from '../credentials';
import { errorForStatus, errorForTransport } from '../../errors';
import type { GenerationSnapshot } from '../../types';
import { type UpstreamAdapter, type UpstreamAdapterOptions, mappingFor } from '../types';

/**
 * Documented prices in our micro-cents per token (US$1 = 1,000,000 µ¢, so US$ per 1M tokens = µ¢ per token), from
 * the model pages of https://developers.openai.com/api/docs/models as read on 2026-11-22: text input US$5, image
 * input US$8, image output US$30 per 1M tokens for GPT Image 2, 2.5 (Flare, Sunburst) and 2.6 Sunburst.
 */
const PRICES: Record<string, { textInput: number; imageInput: number; output: number }> = {};
for (const model of ['gpt-image-2', 'gpt-image-2-2026-04-21', 'gpt-image-2.5-flare', 'gpt-image-2.5-sunburst', 'gpt-image-2.6-sunburst']) {
  PRICES[model] = { textInput: 5, imageInput: 8, output: 30 };
}

/** Node's fetch stops waiting for response headers after five minutes, whatever the SDK's timeout says. */
const GENERATION_TIMEOUT_CAP_MS = 300_000;
/** How many answers are kept for a retry, and for how long: they hold the images. */
const KEPT_ANSWERS = 4;
const KEPT_ANSWER_MS = 10 * 60_000;

type Usage = NonNullable<OpenAI.ImagesResponse['usage']>;

/** What a generation cost in micro-cents, from the usage OpenAI reports and the model's documented prices. */
export function costOf(model: string, usage: Usage | undefined): number | undefined {
  const price = PRICES[model];
  if (!price || !usage) return undefined;
  const images = usage.input_tokens_details?.image_tokens ?? 0;
  const text = usage.input_tokens_details?.text_tokens ?? usage.input_tokens - images;
  // Output tokens are priced as image output: the pages state no separate rate for the few text ones.
  return text * price.textInput + images * price.imageInput + usage.output_tokens * price.output;
}

/** OpenAI's rate-limit reset durations (`1s`, `6m0s`, `20ms`, https://platform.openai.com/docs/guides/rate-limits) in whole seconds. */
export function parseResetDuration(value: string | null | undefined): number | undefined {
  if (!value || !/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(value.trim())) return undefined;
  const unitMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
  let total = 0;
  for (const [, amount, , unit] of value.trim().matchAll(/(\d+(\.\d+)?)(ms|h|m|s)/g)) total += Number(amount) * unitMs[unit];
  return Math.ceil(total / 1000);
}

/**
 * Which limit a 429 says was reached: the one with nothing remaining (`x-ratelimit-remaining-requests` /
 * `-tokens`, https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers), else the one the error's
 * `type` names (`requests`, `tokens`), else, with requests left, the token limit (a request larger than the tokens left).
 */
function limitsReached(headers: Headers, type: string | undefined): Set<'requests' | 'tokens'> {
  const remaining = (name: string) => {
    const value = headers.get(`x-ratelimit-remaining-${name}`);
    return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
  };
  const requests = remaining('requests');
  const tokens = remaining('tokens');
  const reached = new Set<'requests' | 'tokens'>();
  if (requests === 0) reached.add('requests');
  if (tokens === 0) reached.add('tokens');
  if (reached.size === 0 && (type === 'requests' || type === 'tokens')) reached.add(type);
  if (reached.size === 0 && requests !== undefined && requests > 0 && tokens !== undefined) reached.add('tokens');
  return reached;
}

/**
 * When a 429 may be retried: `retry-after-ms` or `retry-after` (what the SDK itself reads), else the documented reset
 * of the limit that was reached; the later of both resets only when both were reached or neither can be told.
 */
function retryAfterOf(headers: Headers | undefined, type: string | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return Math.ceil(ms / 1000);
  const retryAfter = parseRetryAfter(headers.get('retry-after'));
  if (retryAfter !== undefined) return retryAfter;
  const reached = limitsReached(headers, type);
  const limits = reached.size > 0 ? [...reached] : (['requests', 'tokens'] as const);
  const known = limits.map((limit) => parseResetDuration(headers.get(`x-ratelimit-reset-${limit}`))).filter((seconds): seconds is number => seconds !== undefined);
  return known.length > 0 ? Math.max(...known) : undefined;
}

/** OpenAI's 401 message quotes part of the key; no key-like text leaves this module. */
function redacted(text: string): string {
  return text.replace(/\b(sk|sess|org|proj)-[\w*-]+/g, '$1-…');
}

/** An error answer (https://platform.openai.com/docs/guides/error-codes) in our codes. */
export function errorOfAnswer(error: InstanceType<typeof OpenAI.APIError>, status: number): ProviderError {
  const code = error.code ?? '';
  const upstreamMessage = (error.error as { message?: unknown } | undefined)?.message;
  const detail = redacted(`${code ? `${code}: ` : ''}${typeof upstreamMessage === 'string' ? upstreamMessage : error.message}`).slice(0, 300);
  if (status === 401) return new ProviderError('PROVIDER_AUTH_FAILED', `OpenAI refused the API key${code ? ` (${code})` : ''}`, { retryable: false });
  if (code === 'insufficient_quota') {
    return new ProviderError('PROVIDER_AUTH_FAILED', `OpenAI account has no quota left: check its plan and billing (${detail})`, { retryable: false });
  }
  if (status === 429) {
    const retryAfterSeconds = retryAfterOf(error.headers, error.type ?? undefined);
    return new ProviderError('PROVIDER_RATE_LIMITED', `OpenAI answered 429: ${detail}`, {
      retryable: true,
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    });
  }
  if (code === 'moderation_blocked' || code === 'content_policy_violation') {
    return new ProviderError('CONTENT_POLICY_VIOLATION', `OpenAI refused the request on safety grounds: ${detail}`, { retryable: false });
  }
  return errorForStatus('OpenAI', status, detail);
}

function classify(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return abortError(signal);
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ProviderError('PROVIDER_TIMEOUT', 'OpenAI did not answer in time', { retryable: true, cause: error });
  }
  if (error instanceof OpenAI.APIConnectionError) return errorForTransport('OpenAI', error);
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') return errorOfAnswer(error, error.status);
  return error;
}

function clientOf(options: UpstreamAdapterOptions): OpenAI {
  const apiKey = upstreamCredential('openai', options.env);
  if (!apiKey) throw new Error(`${UPSTREAM_ENV.openai.credential} is not set`);
  return new OpenAI({
    apiKey,
    // Everything the SDK would otherwise read from process.env itself comes from options.env.
    baseURL: upstreamOrigin('openai', options.env) ?? UPSTREAM_ENV.openai.defaultOrigin,
    organization: options.env.OPENAI_ORG_ID?.trim() || null,
    project: options.env.OPENAI_PROJECT_ID?.trim() || null,
    adminAPIKey: null,
    webhookSecret: null,
    logLevel: 'warn',
    // The only request is a paid generation: a retried one could be paid twice.
    maxRetries: 0,
    timeout: options.requestTimeoutMs ?? 30_000,
  });
}

/** The few latest answers, for a retry of the same activity on this worker. */
function answerKeeper() {
  const kept = new Map<string, { snapshot: GenerationSnapshot; at: number }>();
  return {
    keep(snapshot: GenerationSnapshot) {
      const now = Date.now();
      for (const [id, entry] of kept) if (now - entry.at > KEPT_ANSWER_MS) kept.delete(id);
      kept.set(snapshot.id, { snapshot, at: now });
      while (kept.size > KEPT_ANSWERS) kept.delete(kept.keys().next().value as string);
    },
    find(id: string): GenerationSnapshot | undefined {
      const entry = kept.get(id);
      return entry && Date.now() - entry.at <= KEPT_ANSWER_MS ? entry.snapshot : undefined;
    },
    forget: (id: string) => void kept.delete(id),
  };
}

export function createOpenAIAdapter(options: UpstreamAdapterOptions): UpstreamAdapter {
  const client = clientOf(options);
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const answers = answerKeeper();

  /** The whole generation happens in one request: up to the job's deadline, at least one request timeout. */
  function generationTimeoutMs(deadline: Date): number {
    return Math.max(requestTimeoutMs, Math.min(deadline.getTime() - Date.now(), GENERATION_TIMEOUT_CAP_MS));
  }

  return {
    id: 'openai',

    // OpenAI takes files as multipart uploads (`images.edit`), never by URL: every file is read and wrapped for the SDK.
    async prepareFile(file, signal) {
      const { data, contentType, filename } = await file.read(signal);
      return toFile(data, filename, { type: contentType });
    },

    async submit(submission, signal): Promise<GenerationSnapshot> {
      const mapping = mappingFor('openai', submission.mapping);
      if ((mapping.operation ?? 'images.generate') !== 'images.generate') {
        throw new ProviderError('PROVIDER_REJECTED_INPUT', `OpenAI operation ${mapping.operation} is not supported`, { retryable: false });
      }
      const params = { ...(submission.input as Omit<OpenAI.ImageGenerateParamsNonStreaming, 'model'>), model: mapping.model, stream: false as const };
      let answer: { data: OpenAI.ImagesResponse; request_id: string | null };
      try {
        answer = await client.images.generate(params, { signal, timeout: generationTimeoutMs(submission.deadline), maxRetries: 0 }).withResponse();
      } catch (error) {
        throw classify(error, signal);
      }
      const response = answer.data;
      const snapshot: GenerationSnapshot = {
        id: answer.request_id ?? `${submission.jobId}@${response.created}`,
        state: 'succeeded',
        progress: 100,
        stage: 'completed',
        result: response,
      };
      const cost = costOf(mapping.model, response.usage);
      if (cost !== undefined) snapshot.upstreamCostMicroCents = cost;
      answers.keep(snapshot);
      return snapshot;
    },

    async status(ref) {
      const kept = answers.find(ref.id);
      if (kept) return kept;
      throw new ProviderError('PROVIDER_JOB_FAILED', `OpenAI image generation ${ref.id} was synchronous and its answer is gone: it cannot be fetched again`, {
        retryable: false,
      });
    },

    // Nothing runs at OpenAI once the request has returned; the kept answer is dropped.
    async cancel(ref) {
      answers.forget(ref.id);
    },
  };
}
