/**
 * fal's queue and storage APIs on loopback, from https://docs.fal.ai/model-apis/model-endpoints/queue
 * (submit, status with queue position and logs, result, cancel), https://docs.fal.ai/model-apis/webhooks
 * (webhook body and Ed25519 signature; the fake publishes its own key pair as the JWKS) and
 * https://docs.fal.ai/model-apis/errors (422 detail lists with an error `type`). With `FAL_BASE_URL` pointing
 * here, every fal host maps to this origin with its path kept.
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import type http from 'node:http';
import { fakeBookkeeping, postWebhook, sendBytes, sendJson, startServer } from './http';
import { sampleMp4, samplePng, scenarioOf } from './media';
import type { FakeUpstream } from './types';

interface FakeRequest {
  id: string;
  endpoint: string;
  input: Record<string, unknown>;
  createdAt: number;
  scenario: Set<string>;
  cancelled: boolean;
  webhook?: string;
}

export interface FalFake extends FakeUpstream {
  /** Headers of a webhook about `requestId` with `body`, signed with the fake's key as fal signs. */
  sign(requestId: string, body: string, timestamp?: number): Record<string, string>;
  requestsOf(): FakeRequest[];
  uploads(): number;
}

const QUEUED_MS = 250;
const RUN_MS = 700;
const USER_ID = 'user_2fake';

export async function startFalFake(): Promise<FalFake> {
  const apiKey = `${randomUUID()}:${randomBytes(16).toString('hex')}`;
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const book = fakeBookkeeping(apiKey);
  const queue = new Map<string, FakeRequest>();
  let uploads = 0;
  let base = '';

  const signWith = (key: KeyObject, requestId: string, body: string, timestamp: number) => {
    const digest = createHash('sha256').update(body).digest('hex');
    const signature = sign(null, Buffer.from([requestId, USER_ID, String(timestamp), digest].join('\n')), key).toString('hex');
    return {
      'x-fal-webhook-request-id': requestId,
      'x-fal-webhook-user-id': USER_ID,
      'x-fal-webhook-timestamp': String(timestamp),
      'x-fal-webhook-signature': signature,
    };
  };

  const fake = {
    ...book.shared,
    uploads: () => uploads,
    requestsOf: () => [...queue.values()],
    sign: (requestId: string, body: string, timestamp = Math.floor(Date.now() / 1000)) => signWith(privateKey, requestId, body, timestamp),
  };

  const failed = (r: FakeRequest) => r.scenario.has('content-policy') || r.scenario.has('fail');
  const runFor = (r: FakeRequest) => (failed(r) ? QUEUED_MS : r.scenario.has('slow') ? fake.slowMs : RUN_MS);
  const isVideo = (r: FakeRequest) => /video/.test(r.endpoint);
  const urls = (r: FakeRequest) => {
    const app = r.endpoint.split('/').slice(0, 2).join('/');
    const response = `${base}/${app}/requests/${r.id}`;
    return { request_id: r.id, response_url: response, status_url: `${response}/status`, cancel_url: `${response}/cancel` };
  };

  /** The model's output (https://fal.ai/models/fal-ai/flux/dev/api, https://fal.ai/models/fal-ai/kling-video/v1.6/pro/elements/api). */
  function output(r: FakeRequest): unknown {
    if (isVideo(r)) return { video: { url: `${base}/files/${r.id}/output.mp4`, content_type: 'video/mp4', file_name: 'output.mp4', file_size: 1024 } };
    const n = Number(r.input.num_images ?? 1);
    return {
      images: Array.from({ length: n }, (_, i) => ({ url: `${base}/files/${r.id}/${i}.png`, width: 64, height: 48, content_type: 'image/png' })),
      timings: { inference: 0.7 },
      seed: 1234,
      has_nsfw_concepts: Array.from({ length: n }, () => false),
      prompt: r.input.prompt,
    };
  }

  /** A failed request's result: the documented 422 detail list (https://docs.fal.ai/model-apis/errors). */
  function failure(r: FakeRequest) {
    return r.scenario.has('content-policy')
      ? { detail: [{ loc: ['body', 'prompt'], msg: 'The content could not be processed because it contained material flagged by a content checker.', type: 'content_policy_violation' }] }
      : { detail: [{ loc: ['body'], msg: 'Internal error while generating.', type: 'generation_failed' }] };
  }

  function schedule(r: FakeRequest): void {
    if (!r.webhook || r.scenario.has('no-callback')) return;
    setTimeout(() => {
      if (fake.dropCallbacks || r.cancelled) return;
      // https://docs.fal.ai/model-apis/webhooks: OK with the payload, or ERROR with the error and its detail
      const body = JSON.stringify(
        failed(r)
          ? { request_id: r.id, gateway_request_id: r.id, status: 'ERROR', error: 'Invalid status code: 422', payload: failure(r) }
          : { request_id: r.id, gateway_request_id: r.id, status: 'OK', payload: output(r) },
      );
      void postWebhook(r.webhook!, fake.sign(r.id, body), body);
    }, runFor(r) + 20).unref();
  }

  function submit(url: URL, body: Buffer, res: http.ServerResponse): void {
    const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    const scenario = scenarioOf(input.prompt);
    if (book.rateLimitsNow(input.prompt, scenario)) {
      return sendJson(res, 429, { detail: 'Rate limit exceeded. Please retry later.' }, { 'retry-after': '1' });
    }
    if (scenario.has('invalid') || typeof input.prompt !== 'string') {
      return sendJson(res, 422, { detail: [{ loc: ['body', 'prompt'], msg: 'field required', type: 'value_error.missing' }] });
    }
    book.pay();
    const r: FakeRequest = {
      id: randomUUID(),
      endpoint: url.pathname.replace(/^\//, ''),
      input,
      createdAt: Date.now(),
      scenario,
      cancelled: false,
      ...(url.searchParams.get('fal_webhook') ? { webhook: url.searchParams.get('fal_webhook')! } : {}),
    };
    queue.set(r.id, r);
    schedule(r);
    // https://docs.fal.ai/model-apis/model-endpoints/queue#submit-a-request
    sendJson(res, 200, { ...urls(r), queue_position: 0 });
  }

  function status(r: FakeRequest, res: http.ServerResponse): void {
    const age = Date.now() - r.createdAt;
    if (age < QUEUED_MS && !r.cancelled) return sendJson(res, 202, { status: 'IN_QUEUE', queue_position: 1, ...urls(r) });
    if (age < runFor(r) && !r.cancelled) {
      const logs = [{ message: 'Generating...', level: 'INFO', source: 'USER', timestamp: new Date().toISOString() }];
      return sendJson(res, 202, { status: 'IN_PROGRESS', logs, ...urls(r) });
    }
    sendJson(res, 200, { status: 'COMPLETED', logs: [], metrics: { inference_time: 0.7 }, ...urls(r) });
  }

  const server = await startServer(async (req, body, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const files = /^\/files\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && files) {
      if (!queue.has(files[1])) return sendJson(res, 404, { detail: 'Not found' });
      return files[2].endsWith('.mp4') ? sendBytes(res, 'video/mp4', await sampleMp4()) : sendBytes(res, 'image/png', await samplePng());
    }
    if (req.method === 'GET' && url.pathname === '/.well-known/jwks.json') {
      return sendJson(res, 200, { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'fake-1', use: 'sig', alg: 'EdDSA' }] });
    }
    if (req.method === 'PUT' && url.pathname.startsWith('/uploads/')) {
      uploads += 1;
      return sendJson(res, 200, {});
    }
    if (req.headers.authorization !== `Key ${apiKey}`) return sendJson(res, 401, { detail: 'Invalid authentication credentials' });
    if (req.method === 'POST' && url.pathname === '/storage/upload/initiate') {
      const { file_name: name } = JSON.parse(body.toString('utf8') || '{}') as { file_name?: string };
      const key = `${randomUUID()}/${name ?? 'file'}`;
      return sendJson(res, 200, { upload_url: `${base}/uploads/${key}`, file_url: `https://v3.fal.media/files/${key}` });
    }
    const inQueue = /\/requests\/([^/]+)(\/status|\/cancel)?$/.exec(url.pathname);
    if (inQueue) {
      const r = queue.get(inQueue[1]);
      if (!r) return sendJson(res, 404, { detail: 'Request not found' });
      if (req.method === 'GET' && inQueue[2] === '/status') return status(r, res);
      if (req.method === 'PUT' && inQueue[2] === '/cancel') {
        book.cancel();
        if (Date.now() - r.createdAt >= runFor(r)) return sendJson(res, 400, { status: 'ALREADY_COMPLETED' });
        r.cancelled = true;
        return sendJson(res, 202, { status: 'CANCELLATION_REQUESTED' });
      }
      if (req.method === 'GET' && !inQueue[2]) {
        if (r.cancelled) return sendJson(res, 400, { detail: 'Request was cancelled' });
        if (Date.now() - r.createdAt < runFor(r)) return sendJson(res, 400, { detail: 'Request is still in progress' });
        return failed(r) ? sendJson(res, 422, failure(r)) : sendJson(res, 200, output(r));
      }
    }
    if (req.method === 'POST') return submit(url, body, res);
    sendJson(res, 404, { detail: 'Not found' });
  }, fake.requests);
  base = server.url;

  return Object.assign(fake, { url: server.url, env: { FAL_KEY: apiKey, FAL_BASE_URL: server.url }, close: server.close });
}
