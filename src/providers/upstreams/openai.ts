/**
 * OpenAI Images through the official `openai` SDK (https://platform.openai.com/docs/api-reference/images/create).
 * Image generation is synchronous: the creating request returns the images as base64, so `submit` returns the
 * finished generation, and there is no generation to look up or cancel afterwards.
 * Video (Sora) is not offered: OpenAI shut the Sora API down on 2026-09-24.
 */
import OpenAI from 'openai';
import { abortError } from '../abort';
import { ProviderError } from '../types';
import { UPSTREAM_ENV, upstreamCredential, upstreamOrigin } from './credentials';
import { errorForStatus, errorForTransport } from './errors';
import type { UpstreamAdapter, UpstreamAdapterOptions, UpstreamSnapshot } from './types';

/**
 * Published prices per token in our micro-cents (US$1 = 1,000,000), from https://platform.openai.com/docs/pricing
 * (GPT Image 1: text input $5, image input $10, image output $40 per 1M tokens).
 */
const PRICES: Record<string, { textInput: number; imageInput: number; output: number }> = {
  'gpt-image-1': { textInput: 5, imageInput: 10, output: 40 },
};

type Usage = NonNullable<OpenAI.ImagesResponse['usage']>;

/** What a generation cost, from the usage OpenAI reports and the model's published prices. */
export function costOf(model: string, usage: Usage | undefined): number | undefined {
  const price = PRICES[model];
  if (!price || !usage) return undefined;
  const text = usage.input_tokens_details?.text_tokens ?? usage.input_tokens;
  const images = usage.input_tokens_details?.image_tokens ?? 0;
  return text * price.textInput + images * price.imageInput + usage.output_tokens * price.output;
}

export function createOpenAIAdapter(options: UpstreamAdapterOptions): UpstreamAdapter {
  const apiKey = upstreamCredential('openai', options.env);
  if (!apiKey) throw new Error(`${UPSTREAM_ENV.openai.credential} is not set`);
  const origin = upstreamOrigin('openai', options.env);
  // No retries: a retried generation request could be a second paid generation.
  const client = new OpenAI({ apiKey, ...(origin ? { baseURL: origin } : {}), maxRetries: 0, timeout: Math.max(options.requestTimeoutMs ?? 0, 300_000) });

  function classify(error: unknown, signal: AbortSignal): unknown {
    if (signal.aborted) return abortError(signal);
    if (error instanceof OpenAI.APIConnectionTimeoutError || error instanceof OpenAI.APIConnectionError) return errorForTransport('OpenAI', error);
    if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
      const code = error.code ?? '';
      const detail = `${code ? `${code}: ` : ''}${(error.error as { message?: string } | undefined)?.message ?? error.message}`;
      const classified = errorForStatus('OpenAI', error.status, detail, error.headers?.get('retry-after'));
      if (error.status === 400 && /content_policy|moderation|safety/.test(code)) {
        return new ProviderError('CONTENT_POLICY_VIOLATION', classified.message, { retryable: false });
      }
      return classified;
    }
    return error;
  }

  return {
    id: 'openai',

    // Generation takes no files; a data: URI is what the Images API accepts where it does.
    async prepareFile(file, signal) {
      const { data, contentType } = await file.read(signal);
      return `data:${contentType};base64,${data.toString('base64')}`;
    },

    async submit(submission, signal): Promise<UpstreamSnapshot> {
      const { route } = submission;
      if ((route.operation ?? 'images.generate') !== 'images.generate') {
        throw new ProviderError('PROVIDER_REJECTED_INPUT', `OpenAI operation ${route.operation} is not supported`, { retryable: false });
      }
      let response: OpenAI.ImagesResponse;
      try {
        response = await client.images.generate(
          { ...(submission.input as Omit<OpenAI.ImageGenerateParamsNonStreaming, 'model'>), model: route.model, stream: false },
          { signal },
        );
      } catch (error) {
        throw classify(error, signal);
      }
      const snapshot: UpstreamSnapshot = { id: `${submission.jobId}@${response.created}`, state: 'succeeded', stage: 'completed', result: response };
      const cost = costOf(route.model, response.usage);
      if (cost !== undefined) snapshot.upstreamCostMicroCents = cost;
      return snapshot;
    },

    async status(ref) {
      // Only reached when a worker died after OpenAI answered: the images went with it.
      throw new ProviderError('PROVIDER_JOB_FAILED', `OpenAI image generation ${ref.id} is synchronous; its result cannot be fetched again`, {
        retryable: false,
      });
    },

    async cancel() {
      // Nothing runs at OpenAI once the request has returned.
    },
  };
}
