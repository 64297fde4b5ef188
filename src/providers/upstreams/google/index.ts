/**
 * Google's Gemini Developer API (key in `GEMINI_API_KEY`).
 * - Images: Gemini image models through the official `@google/genai` SDK's `generateContent`
 *   (https://ai.google.dev/gemini-api/docs/image-generation), synchronous, the image inline as base64.
 * - Video: Veo as a long-running operation, `models/{model}:predictLongRunning` then `GET {operation name}`
 *   (https://ai.google.dev/gemini-api/docs/video, REST). Written against the REST API because the SDK's
 *   `generateVideos` serves only the Enterprise Agent Platform (Vertex AI) since @google/genai 3.
 * Both go to the `v1beta` API version, where Google documents them: @google/genai 3 would send `generateContent` to `v1`.
 * Responsible-AI filtering and every blocked prompt become CONTENT_POLICY_VIOLATION. A 429 gives its wait only in the
 * body (a `google.rpc.RetryInfo` detail), which becomes `retryAfterSeconds`. The Gemini API cannot cancel a Veo
 * operation, so `cancel` lets it run out; its result is never collected.
 */
import { ApiError, GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { abortError, withTimeout } from '../../abort';
import { ProviderError } from '../../types';
import { UPSTREAM_ENV, upstreamCredential, upstreamOrigin } from '../credentials';
import { errorForStatus, errorForTransport } from '../../errors';
import type { GenerationSnapshot } from '../../types';
import { type UpstreamAdapter, type UpstreamAdapterOptions, mappingFor } from '../types';

/**
 * The API version of every call. Google's image-generation and Veo pages (https://ai.google.dev/gemini-api/docs/image-generation,
 * https://ai.google.dev/gemini-api/docs/video) and the generateContent reference document `v1beta`; @google/genai 3
 * defaults to `v1` (or GOOGLE_GENAI_API_VERSION from the environment), so the SDK is given it explicitly.
 */
const API_VERSION = 'v1beta';

/**
 * Published prices of the image models in our micro-cents per million tokens (US$1 = 1,000,000 µ¢, so US$ per 1M
 * tokens × 1,000,000): text and image input, and image output. Gemini 2.5 Flash Image: US$0.30 input, US$30 output
 * (1,290 tokens, US$0.039, an image), from https://ai.google.dev/gemini-api/docs/pricing. Gemini 3.1 Flash Image:
 * US$0.50 input, US$60 output (a 1K image is 1,120 tokens, https://docs.cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/3-1-flash-image,
 * so US$0.067), the rates published listings quote from that pricing page: check them against it when it changes.
 */
const IMAGE_PRICES: Record<string, { input: number; output: number }> = {
  'gemini-2.5-flash-image': { input: 300_000, output: 30_000_000 },
  'gemini-3.1-flash-image': { input: 500_000, output: 60_000_000 },
};

/** What an image generation cost in micro-cents: its prompt tokens at the input price and its output tokens at the output price. */
export function imageCostOf(model: string, usage: GenerateContentResponse['usageMetadata']): number | undefined {
  const price = IMAGE_PRICES[model];
  const output = usage?.candidatesTokenCount;
  if (!price || typeof output !== 'number') return undefined;
  const input = usage?.promptTokenCount ?? 0;
  return Math.round((input * price.input + output * price.output) / 1_000_000);
}

/**
 * Why a prompt yielded no image, as Google's enums name it (https://ai.google.dev/api/generate-content): a prompt
 * blocked for any `promptFeedback.blockReason` (OTHER included: "blocked for other reasons", such as harmful content),
 * or a candidate stopped for a content reason, is a content-policy refusal; anything else is a failed job.
 */
const CONTENT_FINISH_REASONS = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

interface GoogleErrorBody {
  error?: { code?: number; message?: string; status?: string; details?: { '@type'?: string; reason?: string; retryDelay?: unknown }[] };
}

/**
 * The wait of a 429 in whole seconds, from its `google.rpc.RetryInfo` detail (https://cloud.google.com/apis/design/errors#error_details):
 * `retryDelay` is a google.protobuf.Duration in its JSON form, seconds with up to nine decimals and an `s` (`"7s"`, `"1.5s"`).
 */
export function retryDelayOf(body: GoogleErrorBody | undefined): number | undefined {
  const info = body?.error?.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.RetryInfo');
  const match = typeof info?.retryDelay === 'string' ? /^(\d+(?:\.\d{1,9})?)s$/.exec(info.retryDelay.trim()) : null;
  return match ? Math.ceil(Number(match[1])) : undefined;
}

interface VeoOperation {
  name: string;
  done?: boolean;
  error?: { code?: number; message?: string };
  response?: { generateVideoResponse?: { generatedSamples?: unknown[]; raiMediaFilteredCount?: number; raiMediaFilteredReasons?: string[] } };
}

function classifyBody(what: string, status: number, body: GoogleErrorBody | undefined, fallback: string, retryAfter?: string | null): ProviderError {
  const detail = body?.error ? `${body.error.status ?? ''} ${body.error.message ?? ''}`.trim() : fallback;
  // An invalid key is a documented 400 INVALID_ARGUMENT with reason API_KEY_INVALID, not a bad input.
  if (/API key not valid/.test(detail) || body?.error?.details?.some((d) => d.reason === 'API_KEY_INVALID')) {
    return new ProviderError('PROVIDER_AUTH_FAILED', `Google ${what}: ${detail}`, { retryable: false });
  }
  const error = errorForStatus(`Google ${what}`, status, detail, retryAfter);
  const retryAfterSeconds = status === 429 ? retryDelayOf(body) : undefined;
  if (retryAfterSeconds === undefined || error.retryAfterSeconds !== undefined) return error;
  return new ProviderError(error.code, error.message, { retryable: error.retryable, retryAfterSeconds });
}

function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

export function createGoogleAdapter(options: UpstreamAdapterOptions): UpstreamAdapter {
  const apiKey = upstreamCredential('google', options.env);
  if (!apiKey) throw new Error(`${UPSTREAM_ENV.google.credential} is not set`);
  const origin = upstreamOrigin('google', options.env) ?? UPSTREAM_ENV.google.defaultOrigin;
  const timeoutMs = options.requestTimeoutMs ?? 60_000;
  const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: origin, apiVersion: API_VERSION, timeout: timeoutMs } });

  async function rest<T>(what: string, path: string, signal: AbortSignal, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${origin}/${API_VERSION}/${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'x-goog-api-key': apiKey!, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: withTimeout(signal, timeoutMs),
      });
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      throw errorForTransport(`Google ${what}`, error);
    }
    const text = await res.text();
    if (!res.ok) throw classifyBody(what, res.status, parseJson<GoogleErrorBody>(text), text.slice(0, 200), res.headers.get('retry-after'));
    const parsed = parseJson<T>(text);
    if (parsed === undefined) throw new ProviderError('PROVIDER_UNAVAILABLE', `Google ${what} answered no JSON`, { retryable: true });
    return parsed;
  }

  function videoSnapshot(operation: VeoOperation): GenerationSnapshot {
    const id = operation.name;
    if (!operation.done) return { id, state: 'running', stage: 'generating' };
    if (operation.error) {
      const message = `Google video generation failed: ${operation.error.message ?? 'unknown error'}`;
      return { id, state: 'failed', stage: 'failed', error: new ProviderError('PROVIDER_JOB_FAILED', message, { retryable: false }) };
    }
    const response = operation.response?.generateVideoResponse;
    if (!response?.generatedSamples?.length) {
      const reasons = (response?.raiMediaFilteredReasons ?? []).join('; ') || 'no video was returned';
      const code = (response?.raiMediaFilteredCount ?? 0) > 0 ? 'CONTENT_POLICY_VIOLATION' : 'PROVIDER_JOB_FAILED';
      return { id, state: 'failed', stage: 'filtered', error: new ProviderError(code, `Google filtered the video: ${reasons}`, { retryable: false }) };
    }
    return { id, state: 'succeeded', stage: 'done', result: operation.response };
  }

  async function generateImage(jobId: string, model: string, input: Record<string, unknown>, signal: AbortSignal): Promise<GenerationSnapshot> {
    let response: GenerateContentResponse;
    try {
      const config = { ...(input.config as Record<string, unknown> | undefined), abortSignal: signal };
      response = await ai.models.generateContent({ model, contents: input.contents as string, config });
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      if (error instanceof ApiError) throw classifyBody('image generation', error.status, parseJson<GoogleErrorBody>(/\{[\s\S]*\}$/.exec(error.message)?.[0] ?? ''), error.message);
      throw errorForTransport('Google image generation', error);
    }
    const parts = response.candidates?.[0]?.content?.parts ?? [];
    if (!parts.some((part) => part.inlineData?.data)) {
      const blocked = response.promptFeedback?.blockReason;
      if (blocked) {
        const message = response.promptFeedback?.blockReasonMessage;
        throw new ProviderError('CONTENT_POLICY_VIOLATION', `Google blocked the prompt: ${blocked}${message ? ` (${message})` : ''}`, { retryable: false });
      }
      const reason = response.candidates?.[0]?.finishReason ?? 'no image was returned';
      const code = CONTENT_FINISH_REASONS.has(String(reason)) ? 'CONTENT_POLICY_VIOLATION' : 'PROVIDER_JOB_FAILED';
      throw new ProviderError(code, `Google returned no image: ${reason}`, { retryable: false });
    }
    const snapshot: GenerationSnapshot = { id: `${jobId}@${response.responseId ?? 'image'}`, state: 'succeeded', stage: 'done', result: response };
    const cost = imageCostOf(model, response.usageMetadata);
    if (cost !== undefined) snapshot.upstreamCostMicroCents = cost;
    return snapshot;
  }

  return {
    id: 'google',

    // Veo takes images inline (REST form).
    async prepareFile(file, signal) {
      const { data, contentType } = await file.read(signal);
      return { bytesBase64Encoded: data.toString('base64'), mimeType: contentType };
    },

    async submit(submission, signal) {
      const { input } = submission;
      const mapping = mappingFor('google', submission.mapping);
      if (mapping.operation === 'generateContent') return generateImage(submission.jobId, mapping.model, input, signal);
      if (mapping.operation !== 'predictLongRunning') {
        throw new ProviderError('PROVIDER_REJECTED_INPUT', `Google operation ${mapping.operation} is not supported`, { retryable: false });
      }
      return videoSnapshot(await rest<VeoOperation>('video generation', `models/${mapping.model}:predictLongRunning`, signal, input));
    },

    async status(ref, signal) {
      if (mappingFor('google', ref.mapping).operation === 'generateContent') {
        throw new ProviderError('PROVIDER_JOB_FAILED', `Google image generation ${ref.id} is synchronous; its result cannot be fetched again`, { retryable: false });
      }
      return videoSnapshot(await rest<VeoOperation>('operation status', ref.id, signal));
    },

    async cancel() {
      // The Gemini API has no cancel for Veo operations.
    },

    // Generated videos are downloaded from the API with the key (https://ai.google.dev/gemini-api/docs/video).
    outputHeaders(url) {
      return new URL(url).origin === new URL(origin).origin ? { 'x-goog-api-key': apiKey } : undefined;
    },
  };
}
