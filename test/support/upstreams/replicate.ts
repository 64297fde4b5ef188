/**
 * A Replicate API on loopback, from https://replicate.com/docs/reference/http: predictions (create for a model or
 * a version, get, cancel), files, the default webhook secret, and webhooks signed per Standard Webhooks
 * (https://replicate.com/docs/topics/webhooks/verify-webhook). Bodies follow the documented examples.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { fakeBookkeeping, postWebhook, sendBytes, sendJson, startServer } from './http';
import { sampleMp4, samplePng, scenarioOf } from './media';
import type { FakeUpstream } from './types';

interface FakePrediction {
  id: string;
  model: string;
  version: string;
  input: Record<string, unknown>;
  createdAt: number;
  scenario: Set<string>;
  video: boolean;
  cancelled: boolean;
  webhook?: string;
  cancelAfter?: string;
  notified: boolean;
}

export interface ReplicateFake extends FakeUpstream {
  /** The `whsec_` secret the fake signs its webhooks with (served at /v1/webhooks/default/secret). */
  readonly webhookSecret: string;
  /** Signs a webhook body as Replicate does. */
  sign(body: string, id?: string, timestamp?: number): Record<string, string>;
  predictions(): FakePrediction[];
}

const QUEUED_MS = 250;
const RUN_MS = 700;
/** Official models whose output is one video URL rather than a list of images. */
const VIDEO_MODEL = /kling|seedance|wan|veo|hailuo|video/i;

export async function startReplicateFake(): Promise<ReplicateFake> {
  const apiKey = `r8_fake_${randomBytes(8).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  const book = fakeBookkeeping(apiKey);
  const predictions = new Map<string, FakePrediction>();
  let base = '';

  const fake = {
    ...book.shared,
    webhookSecret,
    predictions: () => [...predictions.values()],
    sign(body: string, id = `msg_${randomBytes(8).toString('hex')}`, timestamp = Math.floor(Date.now() / 1000)) {
      const key = Buffer.from(webhookSecret.slice('whsec_'.length), 'base64');
      const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
      return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
    },
  };

  function statusOf(p: FakePrediction): string {
    if (p.cancelled) return 'canceled';
    const age = Date.now() - p.createdAt;
    if (age < QUEUED_MS) return 'starting';
    if (p.scenario.has('content-policy') || p.scenario.has('fail')) return 'failed';
    const runFor = p.scenario.has('slow') ? fake.slowMs : RUN_MS;
    return age < runFor ? 'processing' : 'succeeded';
  }

  /** The prediction object as GET /v1/predictions/{id} shows it (https://replicate.com/docs/reference/http#predictions.get). */
  function view(p: FakePrediction) {
    const status = statusOf(p);
    const output =
      status !== 'succeeded'
        ? null
        : p.video
          ? `${base}/files/${p.id}/output.mp4`
          : Array.from({ length: Number(p.input.num_outputs ?? 1) }, (_, i) => `${base}/files/${p.id}/out-${i}.png`);
    const error =
      status !== 'failed'
        ? null
        : p.scenario.has('content-policy')
          ? 'The input or output was flagged as sensitive. Please try again with different inputs. (E005)'
          : 'Prediction failed for an unknown reason. It might have run out of memory? (E001)';
    return {
      id: p.id,
      model: p.model,
      version: p.version,
      input: p.input,
      logs: status === 'processing' ? 'Using seed: 1234\n 50%|█████     | 2/4 [00:00<00:00,  4.61it/s]' : '',
      output,
      data_removed: false,
      error,
      status,
      created_at: new Date(p.createdAt).toISOString(),
      ...(status === 'succeeded' ? { metrics: { predict_time: 0.7 }, completed_at: new Date().toISOString() } : {}),
      urls: {
        cancel: `${base}/v1/predictions/${p.id}/cancel`,
        get: `${base}/v1/predictions/${p.id}`,
        web: `https://replicate.com/p/${p.id}`,
      },
    };
  }

  function scheduleWebhook(p: FakePrediction): void {
    if (!p.webhook || p.scenario.has('no-callback')) return;
    const delay = p.scenario.has('slow') ? fake.slowMs : p.scenario.has('content-policy') || p.scenario.has('fail') ? QUEUED_MS : RUN_MS;
    setTimeout(() => {
      if (fake.dropCallbacks || p.cancelled || p.notified) return;
      p.notified = true;
      const body = JSON.stringify(view(p));
      void postWebhook(p.webhook!, fake.sign(body), body);
    }, delay + 20).unref();
  }

  function create(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse, model: string, version: string): void {
    const data = JSON.parse(body.toString('utf8') || '{}') as { input?: Record<string, unknown>; webhook?: string };
    const input = data.input ?? {};
    const scenario = scenarioOf(input.prompt);
    if (book.rateLimitsNow(input.prompt, scenario)) {
      // https://replicate.com/docs/topics/predictions/rate-limits
      return sendJson(res, 429, { title: 'Request was throttled.', detail: 'Request was throttled. Expected available in 1 second.', status: 429 }, { 'retry-after': '1' });
    }
    if (scenario.has('invalid') || typeof input.prompt !== 'string') {
      // https://replicate.com/docs/reference/http#errors
      return sendJson(res, 422, {
        detail: '- input.prompt: Invalid type. Expected: string, given: integer\n',
        status: 422,
        title: 'Input validation failed',
        invalid_fields: [{ type: 'invalid_type', field: 'input.prompt', description: 'Invalid type. Expected: string, given: integer' }],
      });
    }
    book.pay();
    const p: FakePrediction = {
      id: randomBytes(13).toString('hex').slice(0, 26),
      model,
      version,
      input,
      createdAt: Date.now(),
      scenario,
      video: VIDEO_MODEL.test(model),
      cancelled: false,
      notified: false,
      ...(data.webhook ? { webhook: data.webhook } : {}),
      ...(typeof req.headers['cancel-after'] === 'string' ? { cancelAfter: req.headers['cancel-after'] } : {}),
    };
    predictions.set(p.id, p);
    scheduleWebhook(p);
    sendJson(res, 201, view(p));
  }

  const server = await startServer(async (req, body, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const files = /^\/files\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && files) {
      if (!predictions.has(files[1])) return sendJson(res, 404, { detail: 'Not found.' });
      return files[2].endsWith('.mp4') ? sendBytes(res, 'video/mp4', await sampleMp4()) : sendBytes(res, 'image/png', await samplePng());
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      // https://replicate.com/docs/reference/http#authentication
      return sendJson(res, 401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 });
    }
    const modelCreate = /^\/v1\/models\/([^/]+\/[^/]+)\/predictions$/.exec(url.pathname);
    if (req.method === 'POST' && modelCreate) return create(req, body, res, modelCreate[1], '');
    if (req.method === 'POST' && url.pathname === '/v1/predictions') {
      const version = String((JSON.parse(body.toString('utf8') || '{}') as { version?: string }).version ?? '');
      return create(req, body, res, version.split(':')[0] ?? '', version);
    }
    const one = /^\/v1\/predictions\/([^/]+)(\/cancel)?$/.exec(url.pathname);
    if (one) {
      const p = predictions.get(one[1]);
      if (!p) return sendJson(res, 404, { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 });
      if (req.method === 'POST' && one[2]) {
        book.cancel();
        if (['starting', 'processing'].includes(statusOf(p))) p.cancelled = true;
        return sendJson(res, 200, view(p));
      }
      if (req.method === 'GET' && !one[2]) return sendJson(res, 200, view(p));
    }
    if (req.method === 'POST' && url.pathname === '/v1/files') {
      // https://replicate.com/docs/reference/http#files.create
      const id = randomBytes(12).toString('hex');
      return sendJson(res, 201, {
        id,
        name: 'upload',
        content_type: 'application/octet-stream',
        size: body.length,
        etag: randomBytes(16).toString('hex'),
        checksums: { sha256: randomBytes(32).toString('hex'), md5: randomBytes(16).toString('hex') },
        metadata: {},
        created_at: new Date().toISOString(),
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
        urls: { get: `${base}/v1/files/${id}` },
      });
    }
    if (req.method === 'GET' && url.pathname === '/v1/webhooks/default/secret') {
      // https://replicate.com/docs/reference/http#webhooks.default.secret.get
      return sendJson(res, 200, { key: webhookSecret });
    }
    sendJson(res, 404, { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 });
  }, fake.requests);
  base = server.url;

  return Object.assign(fake, {
    url: server.url,
    env: { REPLICATE_API_TOKEN: apiKey, REPLICATE_BASE_URL: server.url },
    close: server.close,
  });
}
