/**
 * The OpenAI Images API on loopback, as https://platform.openai.com/docs/api-reference/images/create documents it:
 *
 *   POST /v1/images/generations   synchronous: answers 200 with the images as base64 (`data[].b64_json`) and the
 *                                 token `usage` once the whole generation is done
 *
 * Every request needs `Authorization: Bearer <key>`. Errors are `{error: {message, type, param, code}}` with the
 * statuses of https://platform.openai.com/docs/guides/error-codes; answers carry `x-request-id` (unless
 * `sendRequestId` is off) and a 429 the rate-limit headers of https://platform.openai.com/docs/guides/rate-limits. The images come inline, so the fake
 * serves no files. Video (`/v1/videos`) is not served: OpenAI shut the Videos API down on 2026-09-24.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { fakeBookkeeping, sendJson, startServer } from './http';
import { samplePng, scenarioOf } from './media';
import type { FakeUpstream } from './types';

/** How long an ordinary generation takes before the answer (real ones take 10 s to 2 min). */
const GENERATION_MS = 300;

/** GPT image models that still generate; `gpt-image-1` was shut down on 2026-10-23 (the SDK's `ImageModel` notes). */
const GENERATING_MODELS = ['gpt-image-2', 'gpt-image-2-2026-04-21', 'gpt-image-2.5-flare', 'gpt-image-2.5-sunburst', 'gpt-image-2.6-flare', 'gpt-image-2.6-sunburst'];
const SIZES = ['1024x1024', '1536x1024', '1024x1536', 'auto'];
const QUALITIES = ['low', 'medium', 'high', 'auto'];
const FORMATS = ['png', 'jpeg', 'webp'];

/**
 * Image output tokens of gpt-image-2 by quality and size. The API reference gives no numbers: these follow the cost
 * calculator of https://platform.openai.com/docs/guides/image-generation#calculating-costs, whose formula is
 * reproduced at https://community.openai.com/t/gpt-image-2-output-pricing-calculator-online-and-in-your-code/1382699.
 */
const OUTPUT_TOKENS: Record<string, Record<string, number>> = {
  low: { '1024x1024': 196, '1024x1536': 158, '1536x1024': 158 },
  medium: { '1024x1024': 1756, '1024x1536': 1372, '1536x1024': 1372 },
  high: { '1024x1024': 7024, '1024x1536': 5488, '1536x1024': 5488 },
};

/** One-off documented refusals a test can ask for, besides the prompt tokens of ./types.ts. */
export type OpenAIRefusal = 'insufficient-quota' | 'overloaded' | 'region' | 'gateway-timeout';

export interface OpenAIFake extends FakeUpstream {
  /** When false, a 429 carries only the documented `x-ratelimit-*` headers, without `retry-after`. */
  sendRetryAfter: boolean;
  /** Which limit a 429 reports as reached: requests per minute (the default) or tokens per minute. */
  rateLimitHit: 'requests' | 'tokens';
  /** When false, answers carry no `x-request-id` (as a gateway might). */
  sendRequestId: boolean;
  /** The next creating request gets this documented refusal. */
  refuseNext(refusal: OpenAIRefusal): void;
  /** The JSON bodies of the generation requests, in order. */
  generationBodies(): Record<string, unknown>[];
  /** Set: the PNG every generation answers instead of the sample (one carrying the upstream's own Content Credentials, as OpenAI's do). */
  outputPng?: Buffer;
}

interface GenerateBody {
  model?: unknown;
  prompt?: unknown;
  n?: unknown;
  size?: unknown;
  quality?: unknown;
  output_format?: unknown;
  background?: unknown;
}

function openAiError(message: string, type: string, code: string | null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

/** How the documented 401 quotes a wrong key: its start and end, the rest masked. */
function masked(key: string): string {
  return key.length <= 8 ? '*'.repeat(key.length) : `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}`;
}

/** The first parameter the Images API would refuse, as its documented 400 `invalid_value` (or 404 for the model). */
function invalidParam(body: GenerateBody): { status: number; error: ReturnType<typeof openAiError> } | undefined {
  const invalid = (param: string, value: unknown, allowed: string[]) => ({
    status: 400,
    error: openAiError(`Invalid value: '${String(value)}'. Supported values are: ${allowed.map((v) => `'${v}'`).join(', ')}.`, 'invalid_request_error', 'invalid_value', param),
  });
  if (typeof body.model !== 'string' || !GENERATING_MODELS.includes(body.model)) {
    const message = `The model \`${String(body.model)}\` does not exist or you do not have access to it.`;
    return { status: 404, error: openAiError(message, 'invalid_request_error', 'model_not_found') };
  }
  if (typeof body.prompt !== 'string' || body.prompt.length === 0 || body.prompt.length > 32_000) {
    return { status: 400, error: openAiError("Invalid 'prompt': string must be between 1 and 32000 characters.", 'invalid_request_error', 'invalid_value', 'prompt') };
  }
  if (body.n !== undefined && (!Number.isInteger(body.n) || (body.n as number) < 1 || (body.n as number) > 10)) {
    return { status: 400, error: openAiError(`Invalid 'n': integer must be between 1 and 10, got ${String(body.n)}.`, 'invalid_request_error', 'integer_out_of_range', 'n') };
  }
  if (body.size !== undefined && !SIZES.includes(String(body.size))) return invalid('size', body.size, SIZES);
  if (body.quality !== undefined && !QUALITIES.includes(String(body.quality))) return invalid('quality', body.quality, QUALITIES);
  if (body.output_format !== undefined && !FORMATS.includes(String(body.output_format))) return invalid('output_format', body.output_format, FORMATS);
  // https://platform.openai.com/docs/api-reference/images/create: gpt-image-2 and its snapshot refuse transparency.
  if (body.background === 'transparent' && ['gpt-image-2', 'gpt-image-2-2026-04-21'].includes(String(body.model))) {
    return invalid('background', body.background, ['opaque', 'auto']);
  }
  return undefined;
}

/** The one-off refusals, as https://platform.openai.com/docs/guides/error-codes lists them (the 504 body is not documented). */
const REFUSALS: Record<OpenAIRefusal, { status: number; body: ReturnType<typeof openAiError> }> = {
  'insufficient-quota': {
    status: 429,
    body: openAiError(
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
      'insufficient_quota',
      'insufficient_quota',
    ),
  },
  overloaded: { status: 503, body: openAiError('The engine is currently overloaded, please try again later.', 'server_error', null) },
  region: { status: 403, body: openAiError('Country, region, or territory not supported', 'request_forbidden', 'unsupported_country_region_territory') },
  'gateway-timeout': { status: 504, body: openAiError('Gateway timeout.', 'server_error', null) },
};

export async function startOpenAIFake(): Promise<OpenAIFake> {
  const apiKey = `sk-proj-${randomBytes(24).toString('hex')}`;
  const book = fakeBookkeeping(apiKey);
  const fake = book.shared;
  const refusals: OpenAIRefusal[] = [];
  const bodies: Record<string, unknown>[] = [];
  const self: OpenAIFake = Object.assign(fake, {
    url: '',
    env: {} as Record<string, string>,
    close: () => Promise.resolve(),
    down: () => Promise.resolve(),
    up: () => Promise.resolve(),
    sendRetryAfter: true,
    rateLimitHit: 'requests' as 'requests' | 'tokens',
    sendRequestId: true,
    refuseNext: (refusal: OpenAIRefusal) => void refusals.push(refusal),
    generationBodies: () => [...bodies],
  });

  function answer(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.destroyed) return;
    sendJson(res, status, body, {
      ...(self.sendRequestId ? { 'x-request-id': `req_${randomBytes(16).toString('hex')}` } : {}),
      'openai-version': '2020-10-01',
      'openai-processing-ms': '412',
      ...headers,
    });
  }

  function rateLimited(res: http.ServerResponse, model: string): void {
    // https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers: the remaining counts tell which limit
    // was hit, and each reset is the time until that limit is whole again.
    const requestsHit = self.rateLimitHit === 'requests';
    const headers: Record<string, string> = {
      'x-ratelimit-limit-requests': '5',
      'x-ratelimit-remaining-requests': requestsHit ? '0' : '3',
      'x-ratelimit-reset-requests': requestsHit ? '3s' : '24s',
      'x-ratelimit-limit-tokens': '100000',
      'x-ratelimit-remaining-tokens': requestsHit ? '98244' : '1200',
      'x-ratelimit-reset-tokens': requestsHit ? '1s' : '4s',
    };
    if (self.sendRetryAfter) headers['retry-after'] = requestsHit ? '2' : '4';
    const message = requestsHit
      ? `Rate limit reached for ${model} in organization org-fake on requests per min (RPM): Limit 5, Used 5, Requested 1. Please try again in 2s. Visit https://platform.openai.com/account/rate-limits to learn more.`
      : `Rate limit reached for ${model} in organization org-fake on tokens per min (TPM): Limit 100000, Used 98800, Requested 7000. Please try again in 3.5s. Visit https://platform.openai.com/account/rate-limits to learn more.`;
    answer(res, 429, openAiError(message, requestsHit ? 'requests' : 'tokens', 'rate_limit_exceeded'), headers);
  }

  async function generate(res: http.ServerResponse, body: GenerateBody): Promise<void> {
    const scenario = scenarioOf(body.prompt);
    const refusal = refusals.shift();
    if (refusal) return answer(res, REFUSALS[refusal].status, REFUSALS[refusal].body);
    if (book.rateLimitsNow(body.prompt, scenario)) return rateLimited(res, String(body.model));
    const invalid = invalidParam(body);
    if (invalid) return answer(res, invalid.status, invalid.error);
    if (scenario.has('invalid')) {
      return answer(res, 400, openAiError("Invalid 'prompt': the prompt could not be parsed.", 'invalid_request_error', 'invalid_value', 'prompt'));
    }
    if (scenario.has('content-policy')) {
      const message = 'Your request was rejected by the safety system. If you believe this is an error, contact us at help.openai.com. safety_violations=[violence].';
      return answer(res, 400, openAiError(message, 'image_generation_user_error', 'moderation_blocked'));
    }
    if (scenario.has('fail')) return answer(res, 500, openAiError('The server had an error while processing your request. Sorry about that!', 'server_error', null));
    book.pay();
    await new Promise((resolve) => setTimeout(resolve, scenario.has('slow') ? fake.slowMs : GENERATION_MS));
    answer(res, 200, await imagesResponse(body, self.outputPng ?? (await samplePng())));
  }

  const server = await startServer(async (req, raw, res) => {
    const presented = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (presented !== apiKey) {
      // https://platform.openai.com/docs/guides/error-codes#api-errors (401 Incorrect API key provided)
      const message = `Incorrect API key provided: ${masked(presented ?? '')}. You can find your API key at https://platform.openai.com/account/api-keys.`;
      return answer(res, 401, openAiError(message, 'invalid_request_error', 'invalid_api_key'));
    }
    if (req.method !== 'POST' || req.url !== '/v1/images/generations') {
      return answer(res, 404, openAiError(`Invalid URL (${req.method} ${req.url})`, 'invalid_request_error', null));
    }
    let body: GenerateBody;
    try {
      body = JSON.parse(raw.toString('utf8')) as GenerateBody;
    } catch {
      return answer(res, 400, openAiError('We could not parse the JSON body of your request.', 'invalid_request_error', null));
    }
    bodies.push(body as Record<string, unknown>);
    await generate(res, body);
  }, fake.requests);

  return Object.assign(self, { url: server.url, env: { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: `${server.url}/v1` }, close: server.close, down: server.down, up: server.up });
}

/** The documented image generation response (https://platform.openai.com/docs/api-reference/images/object). */
async function imagesResponse(body: GenerateBody, image: Buffer) {
  const n = typeof body.n === 'number' ? body.n : 1;
  const quality = body.quality === undefined || body.quality === 'auto' ? 'medium' : String(body.quality);
  const size = body.size === undefined || body.size === 'auto' ? '1024x1024' : String(body.size);
  const png = image.toString('base64');
  const textTokens = Math.ceil(String(body.prompt).length / 4);
  const outputTokens = OUTPUT_TOKENS[quality][size] * n;
  return {
    created: Math.floor(Date.now() / 1000),
    background: body.background === 'transparent' ? 'transparent' : 'opaque',
    data: Array.from({ length: n }, () => ({ b64_json: png })),
    output_format: body.output_format ?? 'png',
    quality,
    size,
    usage: {
      total_tokens: textTokens + outputTokens,
      input_tokens: textTokens,
      output_tokens: outputTokens,
      input_tokens_details: { text_tokens: textTokens, image_tokens: 0 },
    },
  };
}
