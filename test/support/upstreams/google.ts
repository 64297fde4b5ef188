/**
 * The Gemini API's media endpoints on loopback (v1beta, key in `x-goog-api-key`): Veo's
 * `models/{model}:predictLongRunning` and its operation (https://ai.google.dev/gemini-api/docs/video, REST
 * tab), the video download `files/{id}:download`, and image generation with `models/{model}:generateContent`
 * (https://ai.google.dev/gemini-api/docs/image-generation, REST tab; response fields from
 * https://ai.google.dev/api/generate-content#generatecontentresponse). Errors use the documented Google API
 * error body `{error: {code, message, status, details}}` (https://ai.google.dev/gemini-api/docs/troubleshooting);
 * a 429 carries its wait only in the body, as a `google.rpc.RetryInfo` detail (https://ai.google.dev/gemini-api/docs/rate-limits,
 * https://cloud.google.com/apis/design/errors#error_details). A model past its shutdown date on
 * https://ai.google.dev/gemini-api/docs/deprecations answers the API's 404 NOT_FOUND for an unknown model.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { fakeBookkeeping, sendBytes, sendJson, startServer } from './http';
import { sampleMp4, samplePng, scenarioOf } from './media';
import type { FakeUpstream } from './types';

interface FakeOperation {
  name: string;
  model: string;
  createdAt: number;
  scenario: Set<string>;
  instance: Record<string, unknown>;
}

export interface GoogleFake extends FakeUpstream {
  operations(): FakeOperation[];
  /** The `retryDelay` of the RetryInfo detail of a 429 (a google.protobuf.Duration in JSON: `"7s"`, `"1.5s"`). */
  retryDelay: string;
  /** The `promptFeedback.blockReason` of a blocked prompt (`[upstream:content-policy]`), one of the API's BlockReason values. */
  blockReason: string;
}

const RUN_MS = 700;

/**
 * Models shut down before 2026-12-01, whose calls answer 404: gemini-2.5-flash-image on 2026-10-02
 * (https://ai.google.dev/gemini-api/docs/deprecations), the Veo 3.0 models on 2026-06-30 (Google's Veo 3 model page,
 * https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/veo/3-0-generate) and the Veo 3.1 previews on
 * 2026-10-22 (the deprecations page, as its readers relay it).
 */
const SHUT_DOWN = new Set(['gemini-2.5-flash-image', 'veo-3.0-generate-001', 'veo-3.0-fast-generate-001', 'veo-3.1-generate-preview', 'veo-3.1-fast-generate-preview']);

/** Tokens of a text prompt, about four characters each (https://ai.google.dev/gemini-api/docs/tokens). */
const tokensOf = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function googleError(code: number, status: string, message: string) {
  return { error: { code, message, status } };
}

export async function startGoogleFake(): Promise<GoogleFake> {
  const apiKey = `AIza${randomBytes(16).toString('hex')}`;
  const book = fakeBookkeeping(apiKey);
  const operations = new Map<string, FakeOperation>();
  let base = '';

  const fake = {
    ...book.shared,
    operations: () => [...operations.values()],
    retryDelay: '7s',
    blockReason: 'PROHIBITED_CONTENT',
  };

  /** The documented 429: the quota that ran out, where to read more, and when to try again. */
  function rateLimited(model: string) {
    return {
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [
              {
                quotaMetric: 'generativelanguage.googleapis.com/generate_requests_per_model',
                quotaId: 'GenerateRequestsPerMinutePerProjectPerModel',
                quotaDimensions: { location: 'global', model },
                quotaValue: '10',
              },
            ],
          },
          { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: fake.retryDelay },
        ],
      },
    };
  }

  /** Refusals shared by both endpoints; undefined when the request may go on. */
  function refusal(model: string, method: string, prompt: unknown): { status: number; body: unknown } | undefined {
    if (SHUT_DOWN.has(model)) {
      const message = `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`;
      return { status: 404, body: googleError(404, 'NOT_FOUND', message) };
    }
    const scenario = scenarioOf(prompt);
    if (book.rateLimitsNow(prompt, scenario)) return { status: 429, body: rateLimited(model) };
    if (scenario.has('invalid') || typeof prompt !== 'string') {
      return { status: 400, body: googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.') };
    }
    return undefined;
  }

  /** The operation as `GET /v1beta/{name}` answers. */
  function view(op: FakeOperation) {
    const runFor = op.scenario.has('slow') ? fake.slowMs : RUN_MS;
    if (Date.now() - op.createdAt < runFor && !op.scenario.has('fail')) return { name: op.name, done: false };
    if (op.scenario.has('fail')) return { name: op.name, done: true, error: { code: 13, message: 'Video generation failed due to an internal error.' } };
    if (op.scenario.has('content-policy')) {
      return {
        name: op.name,
        done: true,
        response: {
          '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse',
          generateVideoResponse: {
            raiMediaFilteredCount: 1,
            raiMediaFilteredReasons: ["We encountered an issue with the audio for your prompt. You weren't charged for this request."],
          },
        },
      };
    }
    const id = op.name.split('/').at(-1);
    return {
      name: op.name,
      done: true,
      response: {
        '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse',
        generateVideoResponse: { generatedSamples: [{ video: { uri: `${base}/v1beta/files/${id}:download?alt=media` } }] },
      },
    };
  }

  async function generateContent(model: string, body: Buffer, res: http.ServerResponse): Promise<void> {
    const { contents } = JSON.parse(body.toString('utf8') || '{}') as { contents?: { parts?: { text?: string }[] }[] };
    const prompt = contents?.[0]?.parts?.[0]?.text;
    const refused = refusal(model, 'generateContent', prompt);
    if (refused) return sendJson(res, refused.status, refused.body);
    book.pay();
    const promptTokenCount = tokensOf(String(prompt));
    if (scenarioOf(prompt).has('content-policy')) {
      // A blocked prompt: no candidates, only promptFeedback (https://ai.google.dev/api/generate-content#PromptFeedback).
      return sendJson(res, 200, { promptFeedback: { blockReason: fake.blockReason }, usageMetadata: { promptTokenCount, totalTokenCount: promptTokenCount }, modelVersion: model });
    }
    if (scenarioOf(prompt).has('slow')) await new Promise((resolve) => setTimeout(resolve, fake.slowMs));
    // A 1024×1024 image is 1,290 output tokens for Gemini 2.5 Flash Image (https://ai.google.dev/gemini-api/docs/image-generation)
    // and 1,120 for Gemini 3.1 Flash Image (https://docs.cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/3-1-flash-image).
    const candidatesTokenCount = model === 'gemini-3.1-flash-image' ? 1120 : 1290;
    sendJson(res, 200, {
      candidates: [
        { content: { parts: [{ inlineData: { mimeType: 'image/png', data: (await samplePng()).toString('base64') } }], role: 'model' }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: { promptTokenCount, candidatesTokenCount, totalTokenCount: promptTokenCount + candidatesTokenCount },
      modelVersion: model,
      responseId: randomBytes(8).toString('hex'),
    });
  }

  const server = await startServer(async (req, body, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.headers['x-goog-api-key'] !== apiKey) {
      return sendJson(res, 400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
        },
      });
    }
    const download = /^\/v1beta\/files\/([^/:]+):download$/.exec(url.pathname);
    if (req.method === 'GET' && download) return sendBytes(res, 'video/mp4', await sampleMp4());
    // The documented REST calls of image generation and Veo are on v1beta; the API also serves generateContent on
    // v1 (the default of @google/genai 3), so the fake takes both and tests check the version the adapter used.
    const call = /^\/v1(?:beta)?\/models\/([^/:]+):(predictLongRunning|generateContent)$/.exec(url.pathname);
    if (req.method === 'POST' && call?.[2] === 'generateContent') return generateContent(call[1], body, res);
    if (req.method === 'POST' && call?.[2] === 'predictLongRunning') {
      const { instances } = JSON.parse(body.toString('utf8') || '{}') as { instances?: Record<string, unknown>[] };
      const instance = instances?.[0] ?? {};
      const refused = refusal(call[1], 'predictLongRunning', instance.prompt);
      if (refused) return sendJson(res, refused.status, refused.body);
      book.pay();
      const op: FakeOperation = {
        name: `models/${call[1]}/operations/${randomBytes(6).toString('hex')}`,
        model: call[1],
        createdAt: Date.now(),
        scenario: scenarioOf(instance.prompt),
        instance,
      };
      operations.set(op.name, op);
      return sendJson(res, 200, { name: op.name });
    }
    const operation = /^\/v1beta\/(models\/[^/]+\/operations\/[^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && operation) {
      const op = operations.get(operation[1]);
      if (!op) return sendJson(res, 404, googleError(404, 'NOT_FOUND', `Operation ${operation[1]} not found.`));
      return sendJson(res, 200, view(op));
    }
    sendJson(res, 404, googleError(404, 'NOT_FOUND', `Method not found: ${req.method} ${url.pathname}`));
  }, fake.requests);
  base = server.url;

  return Object.assign(fake, { url: server.url, env: { GEMINI_API_KEY: apiKey, GOOGLE_GEMINI_BASE_URL: server.url }, close: server.close, down: server.down, up: server.up });
}
