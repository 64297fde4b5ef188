/**
 * fal on loopback: every fal host the client talks to, on one origin with the paths kept (FAL_BASE_URL).
 *
 *   POST /{model_id}[?fal_webhook=…]                 queue submit            (queue.fal.run)
 *   GET  /{owner}/{app}/requests/{id}/status?logs=1   status with logs        (queue.fal.run)
 *   GET  /{owner}/{app}/requests/{id}                 result                  (queue.fal.run)
 *   PUT  /{owner}/{app}/requests/{id}/cancel          cancel                  (queue.fal.run)
 *   POST /storage/upload/initiate?storage_type=…      upload URL for a file   (rest.fal.ai, the client's storage upload)
 *   PUT  /uploads/…                                   the upload itself       (the upload_url handed out above)
 *   GET  /.well-known/jwks.json                       webhook keys            (rest.alpha.fal.ai)
 *   GET  /v1/models/billing-events?request_id=…       cost of a request       (api.fal.ai, ADMIN key)
 *   GET  /files/…                                     outputs and uploaded files
 *
 * Bodies follow https://docs.fal.ai/model-apis/model-endpoints/queue, …/webhooks, https://docs.fal.ai/model-apis/errors,
 * https://docs.fal.ai/documentation/model-apis/request-errors and https://docs.fal.ai/platform-apis/v1/models/billing-events.
 * Webhooks are signed with an Ed25519 key pair made here and published as the JWKS.
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign as signWith, type KeyObject } from 'node:crypto';
import type http from 'node:http';
import { postWebhook, sendBytes, sendJson, startServer } from './http';
import { sampleMp4, samplePng, scenarioOf } from './media';
import type { FakeUpstream, RecordedUpstreamRequest } from './types';

type Kind = 'image' | 'video' | 'elements';

export interface FalFakeRequest {
  id: string;
  /** The endpoint id as submitted, e.g. `fal-ai/flux/dev`. */
  endpoint: string;
  kind: Kind;
  input: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
  createdAt: number;
  /** How long it stays queued. */
  queuedMs: number;
  scenario: Set<string>;
  cancelled: boolean;
  webhook?: string;
}

/** An answer the next authenticated API request gets instead of its own (5xx, stalls, a dropped connection). */
export interface InjectedAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Close the connection instead of answering, once the request has been read. */
  hangUp?: boolean;
}

export interface FalFake extends FakeUpstream {
  /** An ADMIN-scoped key: the only one the billing events accept. */
  readonly adminKey: string;
  /** The fal account the webhooks are signed for (`FAL_USER_ID` in `env`). */
  readonly userId: string;
  /** Headers of a webhook about `requestId` with `body`, signed as fal signs (for `userId`, by default our account). */
  sign(requestId: string, body: string, timestamp?: number, userId?: string): Record<string, string>;
  /** While true, the JWKS answers 503 (still counted in `jwksFetches`). */
  jwksDown: boolean;
  /** Signs from now on with a new key pair, published in place of the old one. */
  rotateKey(): void;
  injectNext(answer: InjectedAnswer): void;
  falRequests(): FalFakeRequest[];
  /** Uploaded files by the URL fal hands back for them. */
  uploads(): Map<string, { contentType: string; data: Buffer }>;
  jwksFetches(): number;
  /** Webhooks delivered, with the receiver's status. */
  webhooks(): { requestId: string; status?: number; body: string }[];
  /**
   * How long a request submitted from now on stays `IN_QUEUE` before it runs (default 250 ms): a number, or a function
   * drawn from once per request (a heavy-tailed queue).
   */
  queuedMs: number | (() => number);
  /** While true, every submit is refused with the 429 of `[upstream:rate-limit]` (throttled past any retry). */
  rateLimitAll: boolean;
  /**
   * While true, every generation accepted from now on fails as `[upstream:fail]` makes it (`runner_server_error`, its
   * result a 500): fal failing on its side while the same prompt succeeds elsewhere.
   */
  failAll: boolean;
  /** While true, every output file answers 503: the generations succeed but their files cannot be fetched. */
  outputsDown: boolean;
}

const QUEUED_MS = 250;
const RUN_MS = 700;
const USER_ID = 'b5c0f1f4-6d2c-4b8e-9f1a-2f1e0c9a7d11';
/** Prices the billing events report, in US$ per unit (images, or seconds of video). */
const UNIT_PRICES: Record<Kind, number> = { image: 0.025, video: 0.05, elements: 0.045 };

const missing = (field: string) => ({ loc: ['body', field], msg: 'field required', type: 'value_error.missing' });

/** Documented model error items (https://docs.fal.ai/model-apis/errors) for an input the endpoint refuses. */
function validate(kind: Kind, input: Record<string, unknown>): object[] {
  const problems: object[] = [];
  if (typeof input.prompt !== 'string') problems.push(missing('prompt'));
  if (kind === 'image' && input.num_images !== undefined && ![1, 2, 3, 4].includes(input.num_images as number)) {
    problems.push({ loc: ['body', 'num_images'], msg: 'Input should be less than or equal to 4', type: 'less_than_equal', url: 'https://docs.fal.ai/errors/#less_than_equal', ctx: { le: 4 }, input: input.num_images });
  }
  if (kind === 'video' && typeof input.image_url !== 'string') problems.push(missing('image_url'));
  if (kind !== 'image' && input.duration !== undefined && !['5', '10'].includes(input.duration as string)) {
    problems.push({ loc: ['body', 'duration'], msg: "Input should be '5' or '10'", type: 'one_of', url: 'https://docs.fal.ai/errors/#one_of', ctx: { expected: ['5', '10'] }, input: input.duration });
  }
  if (kind === 'elements') {
    const urls = input.input_image_urls;
    if (!Array.isArray(urls)) problems.push(missing('input_image_urls'));
    else if (urls.length > 4) {
      problems.push({ loc: ['body', 'input_image_urls'], msg: 'Sequence should have at most 4 items', type: 'sequence_too_long', url: 'https://docs.fal.ai/errors/#sequence_too_long', ctx: { max_length: 4 }, input: urls });
    }
  }
  return problems;
}

function imageUrlsOf(input: Record<string, unknown>): string[] {
  return [input.image_url, ...(Array.isArray(input.input_image_urls) ? input.input_image_urls : [])].filter((url): url is string => typeof url === 'string');
}

export async function startFalFake(): Promise<FalFake> {
  const apiKey = `${randomUUID()}:${randomBytes(16).toString('hex')}`;
  const adminKey = `${randomUUID()}:${randomBytes(16).toString('hex')}`;
  const requests: RecordedUpstreamRequest[] = [];
  const queue = new Map<string, FalFakeRequest>();
  const stored = new Map<string, { contentType: string; data: Buffer }>();
  const delivered: { requestId: string; status?: number; body: string }[] = [];
  const rateLimited = new Set<string>();
  const injected: InjectedAnswer[] = [];
  let keyPair = generateKeyPairSync('ed25519');
  const counts = { paid: 0, cancels: 0, jwks: 0 };
  let base = '';

  const sign = (requestId: string, body: string, timestamp = Math.floor(Date.now() / 1000), userId = USER_ID) => {
    const digest = createHash('sha256').update(body).digest('hex');
    const message = Buffer.from(`${requestId}\n${userId}\n${timestamp}\n${digest}`, 'utf8');
    return {
      'x-fal-webhook-request-id': requestId,
      'x-fal-webhook-user-id': userId,
      'x-fal-webhook-timestamp': String(timestamp),
      'x-fal-webhook-signature': signWith(null, message, keyPair.privateKey as KeyObject).toString('hex'),
    };
  };

  const fake = {
    apiKey,
    adminKey,
    userId: USER_ID,
    jwksDown: false,
    requests,
    slowMs: 8_000,
    dropCallbacks: false,
    queuedMs: QUEUED_MS as number | (() => number),
    rateLimitAll: false,
    failAll: false,
    outputsDown: false,
    paidSubmissions: () => counts.paid,
    cancellations: () => counts.cancels,
    jwksFetches: () => counts.jwks,
    falRequests: () => [...queue.values()],
    uploads: () => stored,
    webhooks: () => delivered,
    sign,
    rotateKey: () => {
      keyPair = generateKeyPairSync('ed25519');
    },
    injectNext: (answer: InjectedAnswer) => {
      injected.push(answer);
    },
  };

  // From submission to completion: the queue, then the run (RUN_MS includes the default queue).
  const runFor = (r: FalFakeRequest) => r.queuedMs - QUEUED_MS + (r.scenario.has('slow') ? fake.slowMs : RUN_MS);
  const done = (r: FalFakeRequest) => r.cancelled || Date.now() - r.createdAt >= runFor(r);
  const urls = (r: FalFakeRequest) => {
    const app = r.endpoint.split('/').slice(0, 2).join('/');
    const response = `${base}/${app}/requests/${r.id}`;
    return { request_id: r.id, response_url: response, status_url: `${response}/status`, cancel_url: `${response}/cancel` };
  };
  const missingUploads = (r: FalFakeRequest) => imageUrlsOf(r.input).filter((url) => url.startsWith(`${base}/files/uploads/`) && !stored.has(url));

  /** Outputs as the model pages show them (https://fal.ai/models/fal-ai/flux/dev/api, …/kling-video/…/api). */
  function output(r: FalFakeRequest): unknown {
    if (r.kind !== 'image') {
      return { video: { url: `${base}/files/${r.id}/output.mp4`, content_type: 'video/mp4', file_name: 'output.mp4', file_size: 1024 } };
    }
    const n = Number(r.input.num_images ?? 1);
    const flagged = r.scenario.has('content-policy');
    return {
      images: Array.from({ length: n }, (_, i) => ({ url: `${base}/files/${r.id}/${i}.png`, width: 64, height: 48, content_type: 'image/png' })),
      timings: { inference: 0.7 },
      seed: 196619188,
      // FLUX's safety checker blacks out a flagged image and says so here rather than failing the request.
      has_nsfw_concepts: Array.from({ length: n }, () => flagged),
      prompt: r.input.prompt,
    };
  }

  /** How a finished request failed, if it did: its result answer and the error fields of its COMPLETED status. */
  function failure(r: FalFakeRequest): { status: number; body: object; errorType?: string; error?: string } | undefined {
    if (r.cancelled) {
      // A request error (https://docs.fal.ai/documentation/model-apis/request-errors): `client_cancelled`, 499.
      const body = { detail: 'Request was cancelled by the client', error_type: 'client_cancelled' };
      return { status: 499, body, errorType: 'client_cancelled', error: body.detail };
    }
    const absent = missingUploads(r);
    if (absent.length > 0) {
      const item = { loc: ['body', r.kind === 'elements' ? 'input_image_urls' : 'image_url'], msg: 'File download error', type: 'file_download_error', url: 'https://docs.fal.ai/errors/#file_download_error', input: absent[0] };
      return { status: 422, body: { detail: [item] } };
    }
    if (r.scenario.has('content-policy') && r.kind !== 'image') {
      const item = {
        loc: ['body', 'prompt'],
        msg: 'The content could not be processed because it contained material flagged by a content checker.',
        type: 'content_policy_violation',
        url: 'https://docs.fal.ai/errors/#content_policy_violation',
        input: r.input.prompt,
      };
      return { status: 422, body: { detail: [item] } };
    }
    if (r.scenario.has('fail')) {
      // A request error (same page): `runner_server_error`, 500; the detail text is ours.
      const body = { detail: 'The runner encountered an internal server error', error_type: 'runner_server_error' };
      return { status: 500, body, errorType: 'runner_server_error', error: body.detail };
    }
    return undefined;
  }

  function notify(r: FalFakeRequest): void {
    if (!r.webhook || r.scenario.has('no-callback')) return;
    setTimeout(() => {
      if (fake.dropCallbacks || r.cancelled) return;
      const failed = failure(r);
      // https://docs.fal.ai/model-apis/model-endpoints/webhooks: "OK" with the payload, or "ERROR" with the error and its detail.
      const body = JSON.stringify(
        failed
          ? { request_id: r.id, gateway_request_id: r.id, status: 'ERROR', error: `Invalid status code: ${failed.status}`, payload: failed.body }
          : { request_id: r.id, gateway_request_id: r.id, status: 'OK', payload: output(r) },
      );
      void postWebhook(r.webhook!, sign(r.id, body), body).then((status) => delivered.push({ requestId: r.id, status, body }));
    }, runFor(r) + 20).unref();
  }

  function submit(req: http.IncomingMessage, url: URL, body: Buffer, res: http.ServerResponse): void {
    const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    const endpoint = url.pathname.replace(/^\//, '');
    const kind: Kind = endpoint.endsWith('/elements') ? 'elements' : /video/.test(endpoint) ? 'video' : 'image';
    const scenario = scenarioOf(input.prompt);
    if (fake.rateLimitAll || (scenario.has('rate-limit') && !rateLimited.has(String(input.prompt)))) {
      rateLimited.add(String(input.prompt));
      // fal documents no 429 body for the queue; a FastAPI-style detail and a Retry-After header.
      return sendJson(res, 429, { detail: 'Too many requests' }, { 'retry-after': '1' });
    }
    const problems = scenario.has('invalid') ? [missing('prompt')] : validate(kind, input);
    if (problems.length > 0) return sendJson(res, 422, { detail: problems }, { 'x-fal-retryable': 'false' });
    counts.paid += 1;
    if (fake.failAll) scenario.add('fail');
    const webhook = url.searchParams.get('fal_webhook');
    const queuedMs = typeof fake.queuedMs === 'function' ? fake.queuedMs() : fake.queuedMs;
    const r: FalFakeRequest = { id: randomUUID(), endpoint, kind, input, headers: req.headers, createdAt: Date.now(), queuedMs, scenario, cancelled: false, ...(webhook ? { webhook } : {}) };
    queue.set(r.id, r);
    notify(r);
    // https://docs.fal.ai/model-apis/model-endpoints/queue#submit-a-request
    sendJson(res, 200, { ...urls(r), queue_position: 0 });
  }

  function status(r: FalFakeRequest, withLogs: boolean, res: http.ServerResponse): void {
    const age = Date.now() - r.createdAt;
    // https://docs.fal.ai/model-apis/model-endpoints/queue#request-status: 202 while queued or running, 200 once
    // COMPLETED; `error`/`error_type` on a failed one as fal's Python client reads them (fal_client.Completed).
    if (!r.cancelled && age < r.queuedMs) return sendJson(res, 202, { status: 'IN_QUEUE', queue_position: age < r.queuedMs / 2 ? 1 : 0, ...urls(r) });
    const logs = [
      { message: 'Loading model weights', level: 'INFO', source: 'USER', timestamp: new Date(r.createdAt + r.queuedMs).toISOString() },
      { message: 'Generating: 50%', level: 'INFO', source: 'USER', timestamp: new Date(r.createdAt + r.queuedMs + 100).toISOString() },
    ];
    if (!done(r)) return sendJson(res, 202, { status: 'IN_PROGRESS', logs: withLogs ? logs : null, ...urls(r) });
    const failed = failure(r);
    const errorFields = failed?.errorType ? { error: failed.error, error_type: failed.errorType } : {};
    sendJson(res, 200, { status: 'COMPLETED', logs: withLogs ? logs : null, metrics: { inference_time: 0.7 }, ...urls(r), ...errorFields });
  }

  function result(r: FalFakeRequest, res: http.ServerResponse): void {
    // Not documented: a result asked for too early.
    if (!done(r)) return sendJson(res, 400, { detail: 'Request is still in progress' });
    const failed = failure(r);
    if (failed) {
      const headers: Record<string, string> = { 'x-fal-request-id': r.id, ...(failed.errorType ? { 'x-fal-error-type': failed.errorType } : { 'x-fal-retryable': 'false' }) };
      return sendJson(res, failed.status, failed.body, headers);
    }
    sendJson(res, 200, output(r), { 'x-fal-request-id': r.id });
  }

  /** https://docs.fal.ai/model-apis/model-endpoints/queue#cancelling-a-request */
  function cancel(r: FalFakeRequest, res: http.ServerResponse): void {
    counts.cancels += 1;
    if (done(r)) return sendJson(res, 400, { status: 'ALREADY_COMPLETED' });
    r.cancelled = true;
    sendJson(res, 202, { status: 'CANCELLATION_REQUESTED' });
  }

  /** https://docs.fal.ai/platform-apis/v1/models/billing-events: one event per finished, successful request. */
  function billingEvents(url: URL, res: http.ServerResponse): void {
    const ids = url.searchParams.getAll('request_id').flatMap((value) => value.split(','));
    const events = ids
      .map((id) => queue.get(id))
      .filter((r): r is FalFakeRequest => r !== undefined && done(r) && failure(r) === undefined)
      .map((r) => {
        const units = r.kind === 'image' ? Number(r.input.num_images ?? 1) : Number(r.input.duration ?? 5);
        const unitPrice = UNIT_PRICES[r.kind];
        return {
          request_id: r.id,
          endpoint_id: r.endpoint,
          timestamp: new Date(r.createdAt + runFor(r)).toISOString(),
          output_units: units,
          unit_price: unitPrice,
          percent_discount: null,
          cost_estimate_nano_usd: Math.round(units * unitPrice * 1e9),
        };
      });
    sendJson(res, 200, { billing_events: events, next_cursor: null, has_more: false });
  }

  async function files(path: string, res: http.ServerResponse): Promise<void> {
    const upload = stored.get(`${base}${path}`);
    if (upload) return sendBytes(res, upload.contentType, upload.data);
    const output = /^\/files\/([^/]+)\/(.+)$/.exec(path);
    if (!output || !queue.has(output[1])) return sendJson(res, 404, { detail: 'Not Found' });
    if (fake.outputsDown) return sendJson(res, 503, { detail: 'Service Unavailable' });
    return output[2].endsWith('.mp4') ? sendBytes(res, 'video/mp4', await sampleMp4()) : sendBytes(res, 'image/png', await samplePng());
  }

  async function api(req: http.IncomingMessage, url: URL, body: Buffer, res: http.ServerResponse): Promise<void> {
    const next = injected.shift();
    if (next) {
      if (next.delayMs) await new Promise((resolve) => setTimeout(resolve, next.delayMs));
      if (next.hangUp) return void req.socket.destroy();
      return sendJson(res, next.status, next.body, next.headers);
    }
    // The client's storage upload (@fal-ai/client src/storage.ts): `{upload_url, file_url}`, then a PUT of the bytes.
    if (req.method === 'POST' && url.pathname === '/storage/upload/initiate') {
      const { file_name: name = 'file', content_type: type } = JSON.parse(body.toString('utf8') || '{}') as { file_name?: string; content_type?: string };
      const key = `${randomBytes(6).toString('hex')}/${encodeURIComponent(name)}`;
      return sendJson(res, 200, { upload_url: `${base}/uploads/${key}?content_type=${encodeURIComponent(type ?? '')}`, file_url: `${base}/files/uploads/${key}` });
    }
    const inQueue = /\/requests\/([^/]+)(\/status|\/cancel)?$/.exec(url.pathname);
    if (inQueue) {
      const r = queue.get(inQueue[1]);
      if (!r) return sendJson(res, 404, { detail: 'Request not found' });
      if (req.method === 'GET' && inQueue[2] === '/status') return status(r, url.searchParams.get('logs') === '1', res);
      if (req.method === 'PUT' && inQueue[2] === '/cancel') return cancel(r, res);
      if (req.method === 'GET' && !inQueue[2]) return result(r, res);
    }
    if (req.method === 'POST') return submit(req, url, body, res);
    sendJson(res, 404, { detail: 'Not Found' });
  }

  const server = await startServer(async (req, body, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method === 'GET' && url.pathname.startsWith('/files/')) return files(url.pathname, res);
    if (req.method === 'PUT' && url.pathname.startsWith('/uploads/')) {
      stored.set(`${base}/files${url.pathname}`, { contentType: String(req.headers['content-type'] ?? 'application/octet-stream'), data: body });
      res.writeHead(200).end();
      return;
    }
    if (req.method === 'GET' && url.pathname === '/.well-known/jwks.json') {
      counts.jwks += 1;
      if (fake.jwksDown) return sendJson(res, 503, { detail: 'Service Unavailable' });
      const { x } = keyPair.publicKey.export({ format: 'jwk' });
      return sendJson(res, 200, { keys: [{ kty: 'OKP', crv: 'Ed25519', x, kid: createHash('sha256').update(x ?? '').digest('hex').slice(0, 16), use: 'sig', alg: 'EdDSA' }] });
    }
    const authorization = req.headers.authorization;
    if (req.method === 'GET' && url.pathname === '/v1/models/billing-events') {
      if (authorization === `Key ${adminKey}`) return billingEvents(url, res);
      return sendJson(res, authorization === `Key ${apiKey}` ? 403 : 401, { detail: authorization === `Key ${apiKey}` ? 'Admin API key required' : 'No user found for Key ID and Secret' });
    }
    // fal's 401 for a key it does not know, as fal answers it (github.com/fal-ai/fal/issues/1068).
    if (authorization !== `Key ${apiKey}`) return sendJson(res, 401, { detail: 'No user found for Key ID and Secret' });
    return api(req, url, body, res);
  }, requests);
  base = server.url;

  return Object.assign(fake, { url: server.url, env: { FAL_KEY: apiKey, FAL_BASE_URL: server.url, FAL_USER_ID: USER_ID }, close: server.close, down: server.down, up: server.up });
}
