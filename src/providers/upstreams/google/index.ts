/**
 * Google's Gemini Developer API (key in `GEMINI_API_KEY`).
 * - Images: Gemini image models through the official `@google/genai` SDK's `generateContent`
 *   (https://ai.google.dev/gemini-api/docs/image-generation), synchronous, the image inline as base64.
 * - Video: Veo as a long-running operation, `models/{model}:predictLongRunning` then `GET {operation name}`
 *   (https://ai.google.dev/gemini-api/docs/video, REST). Written against the REST API because the SDK's
 *   `generateVideos` serves only the Enterprise Agent Platform (Vertex AI) since @google/genai 3.
 * Responsible-AI filtering becomes CONTENT_POLICY_VIOLATION. The Gemini API cannot cancel a Veo operation, so
 * `cancel` lets it run out; its result is never collected.
 */
import { ApiError, GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { abortError, withTimeout } from '../../abort';
import { ProviderError } from '../../types';
import { UPSTREAM_ENV, upstreamCredential, upstreamOrigin } from '../credentials';
import { errorForStatus, errorForTransport } from '../../errors';
import type { GenerationSnapshot } from '../../types';
import { type UpstreamAdapter, type UpstreamAdapterOptions, routeOf } from '../types';

/** Published price of Gemini 2.5 Flash Image output in our micro-cents per token (US$30 per 1M tokens). */
const IMAGE_OUTPUT_MICRO_CENTS_PER_TOKEN: Record<string, number> = { 'gemini-2.5-flash-image': 30 };

interface GoogleErrorBody {
  error?: { code?: number; message?: string; status?: string; details?: { reason?: string }[] };
}

interface VeoOperation {
  name: string;
  done?: boolean;
  error?: { code?: number; message?: string };
  response?: { generateVideoResponse?: { generatedSamples?: unknown[]; raiMediaFilteredCount?: number; raiMediaFilteredReasons?: string[] } };
}

function classifyBody(what: string, status: number, body: GoogleErrorBody | undefined, fallback: string): ProviderError {
  const detail = body?.error ? `${body.error.status ?? ''} ${body.error.message ?? ''}`.trim() : fallback;
  // An invalid key is a documented 400 INVALID_ARGUMENT with reason API_KEY_INVALID, not a bad input.
  if (/API key not valid/.test(detail) || body?.error?.details?.some((d) => d.reason === 'API_KEY_INVALID')) {
    return new ProviderError('PROVIDER_AUTH_FAILED', `Google ${what}: ${detail}`, { retryable: false });
  }
  return errorForStatus(`Google ${what}`, status, detail);
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
  const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: origin, timeout: timeoutMs } });

  async function rest<T>(what: string, path: string, signal: AbortSignal, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${origin}/v1beta/${path}`, {
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
    if (!res.ok) throw classifyBody(what, res.status, parseJson<GoogleErrorBody>(text), text.slice(0, 200));
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
      const reason = response.promptFeedback?.blockReason ?? response.candidates?.[0]?.finishReason ?? 'no image was returned';
      const code = /SAFETY|PROHIBITED|BLOCKLIST|SPII|IMAGE_SAFETY/.test(String(reason)) ? 'CONTENT_POLICY_VIOLATION' : 'PROVIDER_JOB_FAILED';
      throw new ProviderError(code, `Google returned no image: ${reason}`, { retryable: false });
    }
    const snapshot: GenerationSnapshot = { id: `${jobId}@${response.responseId ?? 'image'}`, state: 'succeeded', stage: 'done', result: response };
    const perToken = IMAGE_OUTPUT_MICRO_CENTS_PER_TOKEN[model];
    const tokens = response.usageMetadata?.candidatesTokenCount;
    if (perToken !== undefined && typeof tokens === 'number') snapshot.upstreamCostMicroCents = tokens * perToken;
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
      const route = routeOf('google', submission.route);
      if (route.operation === 'generateContent') return generateImage(submission.jobId, route.model, input, signal);
      if (route.operation !== 'predictLongRunning') {
        throw new ProviderError('PROVIDER_REJECTED_INPUT', `Google operation ${route.operation} is not supported`, { retryable: false });
      }
      return videoSnapshot(await rest<VeoOperation>('video generation', `models/${route.model}:predictLongRunning`, signal, input));
    },

    async status(ref, signal) {
      if (routeOf('google', ref.route).operation === 'generateContent') {
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
