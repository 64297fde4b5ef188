/**
 * A Replicate API on loopback, built from the HTTP API reference (https://replicate.com/docs/reference/http, whose
 * OpenAPI document is https://api.replicate.com/openapi.json): the endpoints the adapter calls, with the documented
 * bodies, statuses and headers. Outputs are served by the fake itself under /delivery/ (standing for
 * replicate.delivery, public like it). Webhooks are signed per Standard Webhooks with the account's secret
 * (https://replicate.com/docs/topics/webhooks/verify-webhook).
 *
 * Where the fake goes beyond the documentation it says so beside the code ("not documented").
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { fakeBookkeeping, postWebhook, sendBytes, sendJson, startServer } from './http';
import { sampleMp4, samplePng, scenarioOf } from './media';
import type { FakeUpstream } from './types';

export interface FakePrediction {
  id: string;
  /** `owner/name`, or the version id for a version route. */
  model: string;
  version: string;
  input: Record<string, unknown>;
  createdAt: number;
  scenario: Set<string>;
  video: boolean;
  webhook?: string;
  events: string[];
  /** The `Cancel-After` header as received. */
  cancelAfter?: string;
  deadlineAt?: number;
  canceledAt?: number;
  sentEvents: Set<string>;
}

export interface FakeFile {
  id: string;
  filename: string;
  contentType: string;
  data: Buffer;
  metadata: unknown;
}

/** An answer forced on the next API request(s): a status and body, a delay before the normal answer, or a hang-up. */
export interface InjectedAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Close the connection without answering, after the request was read. */
  hangUp?: boolean;
  /** How many requests in a row get it (default 1). */
  times?: number;
}

export interface ReplicateFake extends FakeUpstream {
  /** The `whsec_` secret the fake signs its webhooks with (served at /v1/webhooks/default/secret). */
  readonly webhookSecret: string;
  /** Standard Webhooks headers for `body`, as Replicate sends them. */
  sign(body: string, id?: string, timestamp?: number): Record<string, string>;
  predictions(): FakePrediction[];
  files(): Map<string, FakeFile>;
  secretFetches(): number;
  injectNext(answer: InjectedAnswer): void;
  /** Drops the forced answers not used yet. */
  clearInjections(): void;
}

const QUEUED_MS = 250;
const RUN_MS = 700;
const STEPS = 20;
const FILE_LIMIT_BYTES = 100 * 1024 * 1024;

/** Official models the fake runs, with the input fields their schemas on replicate.com declare. */
interface ModelSpec {
  video: boolean;
  required: string[];
  enums: Record<string, unknown[]>;
  integers?: Record<string, [number, number]>;
  arrays?: Record<string, number>;
}

const ASPECT_RATIOS = ['1:1', '16:9', '21:9', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3', '9:16', '9:21'];
const MODELS: Record<string, ModelSpec> = {
  // https://replicate.com/black-forest-labs/flux-schnell/api
  'black-forest-labs/flux-schnell': {
    video: false,
    required: ['prompt'],
    enums: { aspect_ratio: ASPECT_RATIOS, output_format: ['webp', 'jpg', 'png'], megapixels: ['1', '0.25'] },
    integers: { num_outputs: [1, 4], num_inference_steps: [1, 4] },
  },
  // https://replicate.com/black-forest-labs/flux-dev/api
  'black-forest-labs/flux-dev': {
    video: false,
    required: ['prompt'],
    enums: { aspect_ratio: ASPECT_RATIOS, output_format: ['webp', 'jpg', 'png'], megapixels: ['1', '0.25'] },
    integers: { num_outputs: [1, 4], num_inference_steps: [1, 50] },
  },
  // https://replicate.com/kwaivgi/kling-v2.1/api
  'kwaivgi/kling-v2.1': {
    video: true,
    required: ['prompt', 'start_image'],
    enums: { mode: ['standard', 'pro'], duration: [5, 10] },
  },
  // https://replicate.com/bytedance/seedance-1-lite/api
  'bytedance/seedance-1-lite': {
    video: true,
    required: ['prompt'],
    enums: { resolution: ['480p', '720p', '1080p'], aspect_ratio: ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', '9:21'] },
    integers: { duration: [2, 12] },
    arrays: { reference_images: 4 },
  },
};
const ANY_VERSION: ModelSpec = { video: false, required: ['prompt'], enums: {} };

/** `Cancel-After`: `30`, `90s`, `5m`, `1h30m45s`; at least 5 seconds (the header's description in the OpenAPI document). */
function cancelAfterMs(value: string): number | undefined {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?$/.exec(value.trim());
  if (!match || value.trim() === '') return undefined;
  const seconds = Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  return seconds >= 5 ? seconds * 1000 : undefined;
}

/** Problems with an input, as `input.<field>: <message>` (the 422 `invalid_fields` of a version's schema). */
function invalidFields(spec: ModelSpec, input: Record<string, unknown>): { field: string; description: string }[] {
  const problems: { field: string; description: string }[] = [];
  const add = (field: string, description: string) => problems.push({ field: `input.${field}`, description });
  for (const name of spec.required) if (input[name] === undefined) add(name, `${name} is required`);
  if (input.prompt !== undefined && typeof input.prompt !== 'string') add('prompt', `Invalid type. Expected: string, given: ${typeof input.prompt}`);
  for (const [name, allowed] of Object.entries(spec.enums)) {
    if (input[name] !== undefined && !allowed.includes(input[name])) add(name, `${name} must be one of the following: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  for (const [name, [min, max]] of Object.entries(spec.integers ?? {})) {
    const value = input[name];
    if (value !== undefined && (!Number.isInteger(value) || (value as number) < min || (value as number) > max)) {
      add(name, `Must be an integer between ${min} and ${max}`);
    }
  }
  for (const [name, max] of Object.entries(spec.arrays ?? {})) {
    const value = input[name];
    if (value !== undefined && (!Array.isArray(value) || value.length > max)) add(name, `Array must have at most ${max} items`);
  }
  return problems;
}

function progressLine(percent: number): string {
  const bar = '█'.repeat(Math.floor(percent / 10)).padEnd(10, ' ');
  return `${String(percent).padStart(3)}%|${bar}| ${Math.round((percent / 100) * STEPS)}/${STEPS} [00:00<00:00,  4.61it/s]`;
}

export async function startReplicateFake(): Promise<ReplicateFake> {
  const apiKey = `r8_${randomBytes(18).toString('base64url')}`;
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  const book = fakeBookkeeping(apiKey);
  const predictions = new Map<string, FakePrediction>();
  const files = new Map<string, FakeFile>();
  const injections: InjectedAnswer[] = [];
  let secretReads = 0;
  let closed = false;
  let base = '';

  const fake = {
    ...book.shared,
    webhookSecret,
    predictions: () => [...predictions.values()],
    files: () => files,
    secretFetches: () => secretReads,
    injectNext: (answer: InjectedAnswer) => void injections.push({ ...answer, times: answer.times ?? 1 }),
    clearInjections: () => void injections.splice(0),
    sign(body: string, id = `msg_${randomBytes(12).toString('base64url')}`, timestamp = Math.floor(Date.now() / 1000)) {
      const key = Buffer.from(webhookSecret.slice('whsec_'.length), 'base64');
      const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
      return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
    },
  };

  const startOf = (p: FakePrediction) => p.createdAt + QUEUED_MS;
  const endOf = (p: FakePrediction) => p.createdAt + (p.scenario.has('slow') ? fake.slowMs : RUN_MS);

  /** When the prediction stops, if it does: its end, its deadline or its cancel, whichever comes first. */
  function stopAt(p: FakePrediction): number {
    return Math.min(endOf(p), p.deadlineAt ?? Infinity, p.canceledAt ?? Infinity);
  }

  function statusAt(p: FakePrediction, t: number): string {
    const stop = stopAt(p);
    if (t >= stop && stop !== endOf(p)) {
      // Canceled by request or at the deadline; a deadline reached before it started aborts it (lifecycle page).
      return p.canceledAt === stop || stop >= startOf(p) ? 'canceled' : 'aborted';
    }
    if (t < startOf(p)) return 'starting';
    if (t < stop) return 'processing';
    return p.scenario.has('content-policy') || p.scenario.has('fail') ? 'failed' : 'succeeded';
  }

  function outputOf(p: FakePrediction): unknown {
    if (p.video) return `${base}/delivery/xezq/${p.id}/output.mp4`;
    const format = typeof p.input.output_format === 'string' ? p.input.output_format : 'webp';
    const count = Number.isInteger(p.input.num_outputs) ? (p.input.num_outputs as number) : 1;
    return Array.from({ length: count }, (_, i) => `${base}/delivery/xezq/${p.id}/out-${i}.${format}`);
  }

  function logsAt(p: FakePrediction, status: string, t: number): string {
    if (status === 'starting' || status === 'aborted') return '';
    const percent = status === 'succeeded' ? 100 : Math.min(99, Math.floor((100 * (t - startOf(p))) / (endOf(p) - startOf(p))));
    return `Using seed: 1234\n${progressLine(Math.max(0, percent))}`;
  }

  /**
   * The prediction object (schema `schemas_prediction_response`; the example of `predictions.get` in
   * https://replicate.com/docs/reference/http#predictions.get), ids and URLs ours.
   */
  function view(p: FakePrediction, t = Date.now()) {
    const status = statusAt(p, t);
    const terminal = !['starting', 'processing'].includes(status);
    const stop = stopAt(p);
    const started = Math.min(t, stop) >= startOf(p);
    // Error texts are not documented: these follow the `(E####)` codes of https://replicate.com/docs/reference/error-codes.
    const error =
      status !== 'failed'
        ? null
        : p.scenario.has('content-policy')
          ? 'The input or output was flagged as sensitive. Please try again with different inputs. (E005)'
          : 'Prediction failed for an unknown reason. Please try again. (E1000)';
    return {
      id: p.id,
      model: p.model,
      version: p.version || 'hidden',
      input: p.input,
      logs: logsAt(p, status, t),
      output: status === 'succeeded' ? outputOf(p) : null,
      data_removed: false,
      error,
      status,
      source: 'api',
      created_at: new Date(p.createdAt).toISOString(),
      ...(started ? { started_at: new Date(startOf(p)).toISOString() } : {}),
      ...(terminal ? { completed_at: new Date(stop).toISOString() } : {}),
      ...(p.deadlineAt ? { deadline: new Date(p.deadlineAt).toISOString() } : {}),
      ...(terminal && started ? { metrics: { predict_time: (stop - startOf(p)) / 1000, total_time: (stop - p.createdAt) / 1000 } } : {}),
      urls: {
        cancel: `${base}/v1/predictions/${p.id}/cancel`,
        get: `${base}/v1/predictions/${p.id}`,
        web: `https://replicate.com/p/${p.id}`,
      },
    };
  }

  /** Sends `event` once, with the prediction as it is then (the body of a webhook is the prediction object). */
  function notify(p: FakePrediction, event: 'start' | 'completed'): void {
    if (closed || fake.dropCallbacks || !p.webhook || p.scenario.has('no-callback')) return;
    if (p.sentEvents.has(event) || (p.events.length > 0 && !p.events.includes(event))) return;
    p.sentEvents.add(event);
    const body = JSON.stringify(view(p));
    void postWebhook(p.webhook, fake.sign(body), body);
  }

  function scheduleWebhooks(p: FakePrediction): void {
    if (!p.webhook) return;
    const at = (when: number, fn: () => void) => setTimeout(fn, Math.max(0, when - Date.now()) + 10).unref();
    at(startOf(p), () => {
      if (statusAt(p, Date.now()) === 'processing') notify(p, 'start');
    });
    at(stopAt(p), () => {
      if (!['starting', 'processing'].includes(statusAt(p, Date.now()))) notify(p, 'completed');
    });
  }

  function validationFailed(res: http.ServerResponse, problems: { field: string; description: string }[]): void {
    // 422 body of a create whose input fails the version's schema (not shown in the reference; the shape Replicate answers with).
    sendJson(
      res,
      422,
      {
        detail: problems.map((p) => `- ${p.field}: ${p.description}\n`).join(''),
        status: 422,
        title: 'Input validation failed',
        invalid_fields: problems.map((p) => ({ type: 'invalid', field: p.field, description: p.description })),
      },
      { 'content-type': 'application/problem+json' },
    );
  }

  function create(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse, model: string, version: string): void {
    const data = JSON.parse(body.toString('utf8') || '{}') as { input?: Record<string, unknown>; webhook?: string; webhook_events_filter?: string[] };
    const input = data.input ?? {};
    const scenario = scenarioOf(input.prompt);
    if (book.rateLimitsNow(input.prompt, scenario)) {
      // https://replicate.com/docs/topics/predictions/rate-limits: 429 with a `detail`. Retry-After is not documented there;
      // the SDK reads it (and its tests send it), so the fake sends it too.
      return sendJson(res, 429, { detail: 'Request was throttled. Your rate limit resets in ~1s.' }, { 'retry-after': '1' });
    }
    const spec = version ? ANY_VERSION : MODELS[model];
    // Not documented: the 404 for a model that is not official (or does not exist), in the problem shape of files.get.
    if (!spec) return sendJson(res, 404, { detail: 'Model not found' }, { 'content-type': 'application/problem+json' });
    const problems = scenario.has('invalid') ? [{ field: 'input.prompt', description: 'Invalid type. Expected: string, given: integer' }] : invalidFields(spec, input);
    if (problems.length > 0) return validationFailed(res, problems);
    const cancelAfter = typeof req.headers['cancel-after'] === 'string' ? req.headers['cancel-after'] : undefined;
    const lifetime = cancelAfter === undefined ? undefined : cancelAfterMs(cancelAfter);
    if (cancelAfter !== undefined && lifetime === undefined) {
      // Not documented: how an unreadable or too short Cancel-After is refused.
      return sendJson(res, 400, { title: 'Invalid Cancel-After header', detail: `Cannot parse Cancel-After: ${cancelAfter}`, status: 400 }, { 'content-type': 'application/problem+json' });
    }
    book.pay();
    const now = Date.now();
    const p: FakePrediction = {
      id: randomBytes(16).toString('hex').slice(0, 26),
      model: version ? 'owner/model' : model,
      version,
      input,
      createdAt: now,
      scenario,
      video: spec.video,
      events: Array.isArray(data.webhook_events_filter) ? data.webhook_events_filter : [],
      sentEvents: new Set(),
      ...(data.webhook ? { webhook: data.webhook } : {}),
      ...(cancelAfter !== undefined ? { cancelAfter, deadlineAt: now + lifetime! } : {}),
    };
    predictions.set(p.id, p);
    scheduleWebhooks(p);
    // 201 with the prediction object (predictions.create / models.predictions.create).
    sendJson(res, 201, view(p, now));
  }

  function cancel(p: FakePrediction, res: http.ServerResponse): void {
    book.cancel();
    const now = Date.now();
    if (['starting', 'processing'].includes(statusAt(p, now))) {
      p.canceledAt = now;
      setImmediate(() => notify(p, 'completed'));
    }
    // predictions.cancel: 200 with the prediction; a finished one is returned as it is.
    sendJson(res, 200, view(p, now));
  }

  async function upload(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): Promise<void> {
    const form = await new Response(body, { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
    const content = form.get('content');
    if (!(content instanceof Blob)) return sendJson(res, 400, { detail: 'content is required' });
    const data = Buffer.from(await content.arrayBuffer());
    // https://replicate.com/docs/reference/http#files.create: 413 above 100 MB.
    if (data.length > FILE_LIMIT_BYTES) return sendJson(res, 413, { detail: 'Files must be less than 100MB in size' }, { 'content-type': 'application/problem+json' });
    const metadataPart = form.get('metadata');
    const metadata = metadataPart instanceof Blob ? (JSON.parse((await metadataPart.text()) || '{}') as unknown) : {};
    const id = randomBytes(13).toString('hex').slice(0, 26);
    const filename = content instanceof File && content.name ? content.name : 'file';
    const contentType = content.type || 'application/octet-stream';
    files.set(id, { id, filename, contentType, data, metadata });
    const created = Date.now();
    // 201 with the file object (schema `schemas_file_response`).
    sendJson(res, 201, {
      id,
      name: filename,
      content_type: contentType,
      size: data.length,
      checksums: { sha256: createHash('sha256').update(data).digest('hex') },
      metadata,
      created_at: new Date(created).toISOString(),
      expires_at: new Date(created + 3_600_000).toISOString(),
      urls: { get: `${base}/v1/files/${id}` },
    });
  }

  async function delivery(path: string, res: http.ServerResponse): Promise<void> {
    const match = /^\/delivery\/xezq\/([^/]+)\/(.+)$/.exec(path);
    const p = match ? predictions.get(match[1]) : undefined;
    if (!match || !p) return sendJson(res, 404, { detail: 'Not found' });
    return match[2].endsWith('.mp4') ? sendBytes(res, 'video/mp4', await sampleMp4()) : sendBytes(res, 'image/png', await samplePng());
  }

  /** The next forced answer, if any; true when it answered (or hung up) in place of the API. */
  async function injected(req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
    const next = injections[0];
    if (!next) return false;
    next.times = (next.times ?? 1) - 1;
    if (next.times <= 0) injections.shift();
    if (next.delayMs) await new Promise((resolve) => setTimeout(resolve, next.delayMs));
    if (next.hangUp) {
      req.socket.destroy();
      return true;
    }
    if (next.status === undefined) return false;
    sendJson(res, next.status, next.body ?? {}, next.headers ?? {});
    return true;
  }

  function authorized(req: http.IncomingMessage): boolean {
    // The reference's examples send `Authorization: Bearer <token>` (and, for files, `Token <token>`).
    return req.headers.authorization === `Bearer ${apiKey}` || req.headers.authorization === `Token ${apiKey}`;
  }

  async function api(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse, path: string): Promise<void> {
    const method = req.method ?? 'GET';
    const official = /^\/v1\/models\/([^/]+\/[^/]+)\/predictions$/.exec(path);
    if (method === 'POST' && official) return create(req, body, res, official[1], '');
    if (method === 'POST' && path === '/v1/predictions') {
      const version = String((JSON.parse(body.toString('utf8') || '{}') as { version?: unknown }).version ?? '');
      return create(req, body, res, '', version);
    }
    const one = /^\/v1\/predictions\/([^/]+)(\/cancel)?$/.exec(path);
    if (one) {
      const p = predictions.get(one[1]);
      // Not documented for predictions; the 404 shape of files.get.
      if (!p) return sendJson(res, 404, { detail: 'Prediction not found' }, { 'content-type': 'application/problem+json' });
      if (method === 'POST' && one[2]) return cancel(p, res);
      if (method === 'GET' && !one[2]) return sendJson(res, 200, view(p));
    }
    if (method === 'POST' && path === '/v1/files') return upload(req, body, res);
    if (method === 'GET' && path === '/v1/webhooks/default/secret') {
      secretReads += 1;
      // https://replicate.com/docs/reference/http#webhooks.default.secret.get
      return sendJson(res, 200, { key: webhookSecret });
    }
    sendJson(res, 404, { detail: 'Not found' });
  }

  // Webhooks are sent once each: Replicate's retries of a failed delivery are not modelled.
  const server = await startServer(async (req, body, res) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method === 'GET' && path.startsWith('/delivery/')) return delivery(path, res);
    if (!authorized(req)) {
      // Not shown in the reference: the 401 Replicate answers for a missing or wrong token.
      return sendJson(res, 401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 }, { 'content-type': 'application/problem+json' });
    }
    if (await injected(req, res)) return;
    return api(req, body, res, path);
  }, fake.requests);
  base = server.url;

  return Object.assign(fake, {
    url: server.url,
    env: { REPLICATE_API_TOKEN: apiKey, REPLICATE_BASE_URL: server.url },
    close: () => {
      closed = true;
      return server.close();
    },
    down: server.down,
    up: server.up,
  });
}
