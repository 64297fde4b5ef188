/**
 * The OpenAI Images API on loopback, from https://platform.openai.com/docs/api-reference/images/create: a
 * synchronous `POST /v1/images/generations` answering base64 images with token usage, and the documented error
 * bodies (https://platform.openai.com/docs/guides/error-codes).
 */
import { randomBytes } from 'node:crypto';
import { fakeBookkeeping, sendJson, startServer } from './http';
import { samplePng, scenarioOf } from './media';
import type { FakeUpstream } from './types';

function openAiError(message: string, type: string, code: string | null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

export async function startOpenAIFake(): Promise<FakeUpstream> {
  const apiKey = `sk-fake-${randomBytes(12).toString('hex')}`;
  const book = fakeBookkeeping(apiKey);
  const fake = book.shared;

  const server = await startServer(async (req, body, res) => {
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return sendJson(res, 401, openAiError('Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_request_error', 'invalid_api_key'));
    }
    if (req.method !== 'POST' || req.url !== '/v1/images/generations') {
      return sendJson(res, 404, openAiError(`Invalid URL (${req.method} ${req.url})`, 'invalid_request_error', null));
    }
    const params = JSON.parse(body.toString('utf8') || '{}') as { prompt?: string; n?: number; size?: string; quality?: string; output_format?: string };
    const scenario = scenarioOf(params.prompt);
    if (book.rateLimitsNow(params.prompt, scenario)) {
      return sendJson(
        res,
        429,
        openAiError('Rate limit reached for gpt-image-1 in organization org-fake on images per minute (IPM): Limit 5, Used 5, Requested 1. Please try again in 1s.', 'requests', 'rate_limit_exceeded'),
        { 'retry-after': '1', 'x-ratelimit-limit-requests': '5', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1s' },
      );
    }
    if (scenario.has('invalid') || !['1024x1024', '1024x1536', '1536x1024', 'auto', undefined].includes(params.size)) {
      return sendJson(res, 400, openAiError(`Invalid value: '${params.size}'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'.`, 'invalid_request_error', 'invalid_value', 'size'));
    }
    if (scenario.has('content-policy')) {
      return sendJson(res, 400, openAiError('Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.', 'image_generation_user_error', 'moderation_blocked'));
    }
    if (scenario.has('fail')) return sendJson(res, 500, openAiError('The server had an error while processing your request. Sorry about that!', 'server_error', null));
    book.pay();
    await new Promise((resolve) => setTimeout(resolve, scenario.has('slow') ? fake.slowMs : 300));
    const png = (await samplePng()).toString('base64');
    const n = params.n ?? 1;
    // https://platform.openai.com/docs/api-reference/images/object
    sendJson(res, 200, {
      created: Math.floor(Date.now() / 1000),
      background: 'opaque',
      data: Array.from({ length: n }, () => ({ b64_json: png })),
      output_format: params.output_format ?? 'png',
      quality: params.quality ?? 'medium',
      size: params.size ?? '1024x1024',
      usage: { total_tokens: 1100 * n + 50, input_tokens: 50, output_tokens: 1056 * n, input_tokens_details: { text_tokens: 50, image_tokens: 0 } },
    });
  }, fake.requests);

  return Object.assign(fake, { url: server.url, env: { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: `${server.url}/v1` }, close: server.close });
}
