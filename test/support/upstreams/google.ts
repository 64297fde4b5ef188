/**
 * The Gemini API's media endpoints on loopback (v1beta, key in `x-goog-api-key`): Veo's
 * `models/{model}:predictLongRunning` and its operation (https://ai.google.dev/gemini-api/docs/video, REST
 * tab), the video download `files/{id}:download`, and image generation with `models/{model}:generateContent`
 * (https://ai.google.dev/gemini-api/docs/image-generation, REST tab; response fields from
 * https://ai.google.dev/api/generate-content#generatecontentresponse). Errors use the documented Google API
 * error body `{error: {code, message, status}}` (https://ai.google.dev/gemini-api/docs/troubleshooting).
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
}

const RUN_MS = 700;

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
  };

  /** Refusals shared by both endpoints; undefined when the request may go on. */
  function refusal(prompt: unknown): { status: number; body: unknown } | undefined {
    const scenario = scenarioOf(prompt);
    if (book.rateLimitsNow(prompt, scenario)) {
      return { status: 429, body: googleError(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).') };
    }
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

  async function generateContent(body: Buffer, res: http.ServerResponse): Promise<void> {
    const { contents } = JSON.parse(body.toString('utf8') || '{}') as { contents?: { parts?: { text?: string }[] }[] };
    const prompt = contents?.[0]?.parts?.[0]?.text;
    const refused = refusal(prompt);
    if (refused) return sendJson(res, refused.status, refused.body);
    book.pay();
    if (scenarioOf(prompt).has('content-policy')) {
      return sendJson(res, 200, { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 12, totalTokenCount: 12 } });
    }
    if (scenarioOf(prompt).has('slow')) await new Promise((resolve) => setTimeout(resolve, fake.slowMs));
    sendJson(res, 200, {
      candidates: [
        { content: { parts: [{ inlineData: { mimeType: 'image/png', data: (await samplePng()).toString('base64') } }], role: 'model' }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1290, totalTokenCount: 1302 },
      modelVersion: 'gemini-2.5-flash-image',
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
    // The SDK calls generateContent on v1; the REST examples of Veo use v1beta. The API serves both.
    const call = /^\/v1(?:beta)?\/models\/([^/:]+):(predictLongRunning|generateContent)$/.exec(url.pathname);
    if (req.method === 'POST' && call?.[2] === 'generateContent') return generateContent(body, res);
    if (req.method === 'POST' && call?.[2] === 'predictLongRunning') {
      const { instances } = JSON.parse(body.toString('utf8') || '{}') as { instances?: Record<string, unknown>[] };
      const instance = instances?.[0] ?? {};
      const refused = refusal(instance.prompt);
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
