/**
 * The Runway API on loopback, as https://docs.dev.runwayml.com/api/ documents it. Request and answer shapes follow
 * the reference and the official SDK's types, which are generated from Runway's OpenAPI spec
 * (node_modules/@runwayml/sdk/src/resources/*.ts):
 *
 *   POST   /v1/text_to_image      create a task (gen4_image)             → 200 {id, estimatedCost}
 *   POST   /v1/image_to_video     create a task (gen4_turbo, seedance2)  → 200 {id, estimatedCost}
 *   GET    /v1/tasks/{id}         PENDING | THROTTLED | RUNNING (progress) | SUCCEEDED (output) | FAILED | CANCELLED
 *   DELETE /v1/tasks/{id}         cancels a running task, deletes a finished one → 204
 *   POST   /v1/uploads            an ephemeral upload: a presigned form POST, then a `runway://` URI
 *
 * Every API request needs `Authorization: Bearer <key>` and `X-Runway-Version: 2024-11-06`. Errors are JSON with a
 * human-readable `error` (https://docs.dev.runwayml.com/errors/errors/). Outputs and the upload form are served
 * on the fake's own origin, like Runway's presigned storage URLs, without the API key.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { isIP } from 'node:net';
import { fakeBookkeeping, sendBytes, sendJson, startServer } from './http';
import { sampleMp4, samplePng, scenarioOf } from './media';
import type { FakeUpstream } from './types';

/** The API version the SDK pins (`X-Runway-Version`). */
export const RUNWAY_VERSION = '2024-11-06';

const PENDING_MS = 250;
const RUN_MS = 800;
const FAIL_AFTER_MS = 500;
const MAX_PROMPT_IMAGES = 9;
/** https://docs.dev.runwayml.com/assets/inputs/: a data URI must be under 5 MB, counted encoded. */
const DATA_URI_LIMIT = 5 * 1024 * 1024;

/** Ratios of each model, as the API reference lists them. */
const GEN4_IMAGE_1080P = ['1024:1024', '1080:1080', '1168:880', '1360:768', '1440:1080', '1080:1440', '1808:768', '1920:1080', '1080:1920', '2112:912'];
const GEN4_IMAGE_720P = ['1280:720', '720:1280', '720:720', '960:720', '720:960', '1680:720'];
const GEN4_TURBO_RATIOS = ['1280:720', '720:1280', '1104:832', '832:1104', '960:960', '1584:672'];
const SEEDANCE2_RATIOS = [
  '992:432', '864:496', '752:560', '640:640', '560:752', '496:864', '1470:630', '1280:720', '1112:834', '960:960', '834:1112', '720:1280',
  '2206:946', '1920:1080', '1664:1248', '1440:1440', '1248:1664', '1080:1920', '3840:1646', '3840:2160', '3840:2880', '3840:3840', '2880:3840', '2160:3840',
];
const TAG = /^[A-Za-z][A-Za-z0-9_]{2,15}$/;

export interface FakeTask {
  id: string;
  model: string;
  kind: 'video' | 'image';
  body: Record<string, unknown>;
  createdAt: number;
  scenario: Set<string>;
  credits: number;
  failureCode: string;
  /** Output token, like the `_jwt` of Runway's signed output URLs. */
  token: string;
  cancelledAt?: number;
  deleted: boolean;
}

export interface FakeUpload {
  uri: string;
  filename: string;
  key: string;
  /** Bytes received by the presigned form POST; undefined until then. */
  size?: number;
  contentType?: string;
}

export interface RunwayFake extends FakeUpstream {
  /** Tasks created, oldest first. */
  tasks(): FakeTask[];
  /** Ephemeral uploads started, oldest first. */
  uploads(): FakeUpload[];
  /** The `failureCode` of tasks created with `[upstream:fail]` from now on (default `INTERNAL.BAD_OUTPUT.CODE01`). */
  failureCode: string;
  /** A `Retry-After` for the 429 of `[upstream:rate-limit]`: Runway documents none, so unset by default. */
  rateLimitRetryAfter?: string;
  /** The next `times` API requests answer `status` (Runway documents 502/503 when shedding load, 504 when overloaded). */
  failNext(status: number, times?: number): void;
  /** The next API request is handled only after `ms` (a slow answer). */
  stallNext(ms: number): void;
  /** The next `times` API requests are handled, then their connections are destroyed without an answer (0: none). */
  dropNext(times?: number): void;
}

type Check = string | undefined;

function isInt(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function optionalInt(body: Record<string, unknown>, field: string, min: number, max: number): Check {
  if (body[field] === undefined || isInt(body[field], min, max)) return undefined;
  return `${field} must be an integer from ${min} to ${max}`;
}

function promptTextCheck(body: Record<string, unknown>, max: number, required: boolean): Check {
  const text = body.promptText;
  if (text === undefined) return required ? 'promptText is required' : undefined;
  if (typeof text !== 'string' || text.length < 1 || text.length > max) return `promptText must be a non-empty string of at most ${max} characters`;
  return undefined;
}

function ratioCheck(body: Record<string, unknown>, allowed: string[], required: boolean): Check {
  if (body.ratio === undefined) return required ? 'ratio is required' : undefined;
  return allowed.includes(String(body.ratio)) ? undefined : `ratio must be one of ${allowed.join(', ')}`;
}

export async function startRunwayFake(): Promise<RunwayFake> {
  const apiKey = `key_${randomBytes(24).toString('hex')}`;
  const book = fakeBookkeeping(apiKey);
  const tasks = new Map<string, FakeTask>();
  const uploads = new Map<string, FakeUpload>();
  const failures: number[] = [];
  let stallMs = 0;
  let drops = 0;
  let base = '';

  const fake = {
    ...book.shared,
    failureCode: 'INTERNAL.BAD_OUTPUT.CODE01',
    rateLimitRetryAfter: undefined as string | undefined,
    tasks: () => [...tasks.values()],
    uploads: () => [...uploads.values()],
    failNext(status: number, times = 1) {
      for (let i = 0; i < times; i++) failures.push(status);
    },
    stallNext(ms: number) {
      stallMs = ms;
    },
    dropNext(times = 1) {
      drops = times;
    },
  };

  /** An image input as https://docs.dev.runwayml.com/assets/inputs/ allows it: an https URL, a data URI or an upload. */
  function uriCheck(value: unknown, where: string): Check {
    if (typeof value !== 'string') return `${where} must be a string`;
    if (value.startsWith('data:')) {
      if (!/^data:image\/[a-z0-9.+-]+;base64,/i.test(value)) return `${where} must be a base64 data URI with an image content type`;
      return value.length < DATA_URI_LIMIT ? undefined : `${where} is a data URI of 5MB or more`;
    }
    if (value.startsWith('runway://')) {
      const upload = uploads.get(value);
      return upload?.size !== undefined ? undefined : `${where} is not an upload of this organization`;
    }
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return `${where} is not a valid URL`;
    }
    if (url.protocol !== 'https:') return `${where} must be an HTTPS URL`;
    if (isIP(url.hostname.replace(/^\[|\]$/g, ''))) return `${where} must reference a domain name, not an IP address`;
    return value.length <= 2048 ? undefined : `${where} is longer than 2048 characters`;
  }

  function referenceImagesCheck(body: Record<string, unknown>): Check {
    const images = body.referenceImages;
    if (images === undefined) return undefined;
    if (!Array.isArray(images) || images.length < 1 || images.length > 3) return 'referenceImages must hold one to three images';
    for (const [i, image] of images.entries()) {
      const { uri, tag } = (image ?? {}) as { uri?: unknown; tag?: unknown };
      const problem = uriCheck(uri, `referenceImages[${i}].uri`);
      if (problem) return problem;
      if (tag !== undefined && (typeof tag !== 'string' || !TAG.test(tag))) return `referenceImages[${i}].tag must be 3-16 letters, digits or underscores, starting with a letter`;
    }
    return undefined;
  }

  function promptImageCheck(body: Record<string, unknown>, references: boolean): Check {
    const image = body.promptImage;
    if (typeof image === 'string') return uriCheck(image, 'promptImage');
    if (!Array.isArray(image) || image.length === 0) return 'promptImage is required';
    const positions = image.map((item) => (item as { position?: unknown })?.position);
    const keyframes = positions.filter((position) => position !== undefined);
    if (!references && (image.length !== 1 || positions[0] !== 'first')) return 'promptImage takes one image at position "first"';
    if (references && keyframes.length > 0 && keyframes.length !== image.length) return 'promptImage cannot mix keyframes and reference images';
    if (references && keyframes.some((position) => position !== 'first' && position !== 'last')) return 'promptImage position must be "first" or "last"';
    if (image.length > MAX_PROMPT_IMAGES) return `promptImage takes at most ${MAX_PROMPT_IMAGES} images`;
    for (const [i, item] of image.entries()) {
      const problem = uriCheck((item as { uri?: unknown })?.uri, `promptImage[${i}].uri`);
      if (problem) return problem;
    }
    return undefined;
  }

  /** The request body of each model, by the SDK's generated parameter types; the credits it costs, or the problem. */
  function validate(endpoint: string, body: Record<string, unknown>): { credits: number; kind: FakeTask['kind'] } | { problem: string } {
    const model = body.model;
    const first = (checks: Check[]): string | undefined => checks.find((check) => check !== undefined);
    if (endpoint === 'text_to_image' && model === 'gen4_image') {
      const problem = first([
        promptTextCheck(body, 1000, true),
        ratioCheck(body, [...GEN4_IMAGE_1080P, ...GEN4_IMAGE_720P], true),
        referenceImagesCheck(body),
        optionalInt(body, 'seed', 0, 4294967295),
      ]);
      return problem ? { problem } : { kind: 'image', credits: GEN4_IMAGE_720P.includes(String(body.ratio)) ? 5 : 8 };
    }
    if (endpoint === 'image_to_video' && model === 'gen4_turbo') {
      const problem = first([
        promptImageCheck(body, false),
        ratioCheck(body, GEN4_TURBO_RATIOS, true),
        promptTextCheck(body, 1000, false),
        optionalInt(body, 'duration', 2, 10),
        optionalInt(body, 'seed', 0, 4294967295),
      ]);
      return problem ? { problem } : { kind: 'video', credits: 5 * Number(body.duration ?? 10) };
    }
    if (endpoint === 'image_to_video' && model === 'seedance2') {
      const problem = first([
        promptImageCheck(body, true),
        ratioCheck(body, SEEDANCE2_RATIOS, false),
        promptTextCheck(body, 3500, false),
        body.duration === 'auto' ? undefined : optionalInt(body, 'duration', 4, 15),
        optionalInt(body, 'seed', 0, 4294967295),
      ]);
      const seconds = body.duration === undefined || body.duration === 'auto' ? 15 : Number(body.duration);
      return problem ? { problem } : { kind: 'video', credits: 36 * seconds };
    }
    return { problem: `Model ${JSON.stringify(model)} is not available on /v1/${endpoint}` };
  }

  /**
   * A task as GET /v1/tasks/{id} answers it, one shape per status
   * (https://docs.dev.runwayml.com/api/#tag/Task-management/paths/~1v1~1tasks~1%7Bid%7D/get; TaskRetrieveResponse in
   * the SDK). Outputs are signed URLs like the reference's example (`https://….cloudfront.net/<uuid>.mp4?_jwt=…`).
   */
  function view(task: FakeTask) {
    const common = { id: task.id, createdAt: new Date(task.createdAt).toISOString() };
    const estimatedCost = { credits: task.credits };
    if (task.cancelledAt !== undefined) return { ...common, status: 'CANCELLED', cost: { credits: 0 } };
    const age = Date.now() - task.createdAt;
    const slow = task.scenario.has('slow');
    if (age < PENDING_MS) return { ...common, status: 'PENDING', estimatedCost };
    if (task.scenario.has('content-policy')) {
      // https://docs.dev.runwayml.com/errors/task-failures/: SAFETY.INPUT.TEXT, the prompt text was rejected.
      return { ...common, status: 'FAILED', failure: 'The prompt was flagged by our content moderation system.', failureCode: 'SAFETY.INPUT.TEXT', cost: { credits: 0 } };
    }
    if (task.scenario.has('fail') && age >= FAIL_AFTER_MS) {
      // https://docs.dev.runwayml.com/errors/task-failures/ (INTERNAL.BAD_OUTPUT.* unless the test chose another code).
      return { ...common, status: 'FAILED', failure: 'The generation could not be completed.', failureCode: task.failureCode, cost: { credits: 0 } };
    }
    const runFor = slow ? fake.slowMs : RUN_MS;
    if (slow && age < runFor / 2) return { ...common, status: 'THROTTLED', estimatedCost };
    if (age < runFor) {
      const from = slow ? runFor / 2 : PENDING_MS;
      const progress = Math.min(0.99, Math.round(((age - from) / (runFor - from)) * 100) / 100);
      return { ...common, status: 'RUNNING', progress, estimatedCost };
    }
    const file = task.kind === 'video' ? 'mp4' : 'png';
    return { ...common, status: 'SUCCEEDED', output: [`${base}/outputs/${task.id}.${file}?_jwt=${task.token}`], cost: { credits: task.credits } };
  }

  function isActive(task: FakeTask): boolean {
    return task.cancelledAt === undefined && ['PENDING', 'THROTTLED', 'RUNNING'].includes(view(task).status);
  }

  function create(endpoint: string, raw: Buffer, res: http.ServerResponse): void {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return sendJson(res, 400, { error: 'The request body is not valid JSON.' });
    }
    const scenario = scenarioOf(body.promptText);
    if (book.rateLimitsNow(body.promptText, scenario)) {
      // https://docs.dev.runwayml.com/usage/tiers/: over the daily generations limit, task creation answers 429.
      const headers: Record<string, string> = fake.rateLimitRetryAfter ? { 'retry-after': fake.rateLimitRetryAfter } : {};
      return sendJson(res, 429, { error: 'You have exceeded your daily generation limit.' }, headers);
    }
    const checked = scenario.has('invalid') ? { problem: 'promptImage: the image could not be processed' } : validate(endpoint, body);
    if ('problem' in checked) return sendJson(res, 400, { error: checked.problem });
    book.pay();
    const task: FakeTask = {
      id: randomUUID(),
      model: String(body.model),
      kind: checked.kind,
      body,
      createdAt: Date.now(),
      scenario,
      credits: checked.credits,
      failureCode: fake.failureCode,
      token: randomBytes(12).toString('hex'),
      deleted: false,
    };
    tasks.set(task.id, task);
    // https://docs.dev.runwayml.com/api/#tag/Start-generating: the task id, and the most it may charge.
    sendJson(res, 200, { id: task.id, estimatedCost: { credits: task.credits } });
  }

  function taskRoute(method: string, id: string, res: http.ServerResponse): void {
    const task = tasks.get(id);
    // https://docs.dev.runwayml.com/errors/errors/: 404 for a resource that is not available, 405 for a wrong method.
    if (!task || task.deleted) return sendJson(res, 404, { error: 'Task not found.' });
    if (method === 'GET') return sendJson(res, 200, view(task));
    if (method !== 'DELETE') return sendJson(res, 405, { error: 'Method not allowed.' });
    // https://docs.dev.runwayml.com/api/#tag/Task-management/paths/~1v1~1tasks~1%7Bid%7D/delete: 204, no body.
    book.cancel();
    if (isActive(task)) task.cancelledAt = Date.now();
    else task.deleted = true;
    res.writeHead(204).end();
  }

  /** POST /v1/uploads as the SDK's `uploads.createEphemeral` calls it (src/resources/uploads.ts of @runwayml/sdk). */
  function startUpload(raw: Buffer, res: http.ServerResponse): void {
    const { filename, type } = JSON.parse(raw.toString('utf8') || '{}') as { filename?: unknown; type?: unknown };
    if (typeof filename !== 'string' || filename === '' || type !== 'ephemeral') return sendJson(res, 400, { error: 'filename and type "ephemeral" are required.' });
    const id = randomUUID();
    const upload: FakeUpload = { uri: `runway://uploads/${id}`, filename, key: `ephemeral/${id}/${filename}` };
    uploads.set(upload.uri, upload);
    sendJson(res, 200, { uploadUrl: `${base}/storage/uploads`, fields: { key: upload.key, 'Content-Disposition': 'inline' }, runwayUri: upload.uri });
  }

  /** The presigned form POST of an upload: its `key` field names the upload; the file comes last. */
  async function receiveUpload(req: http.IncomingMessage, raw: Buffer, res: http.ServerResponse): Promise<void> {
    const form = await new Request('http://fake/storage', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: raw }).formData();
    const upload = [...uploads.values()].find((u) => u.key === form.get('key'));
    const file = form.get('file');
    if (!upload || !(file instanceof Blob)) return sendJson(res, 400, { error: 'Invalid upload form.' });
    upload.size = file.size;
    upload.contentType = file.type;
    res.writeHead(204).end();
  }

  async function serveOutput(name: string, token: string | null, res: http.ServerResponse): Promise<void> {
    const [id, ext] = name.split('.');
    const task = tasks.get(id);
    if (!task || task.deleted || task.token !== token) return sendJson(res, 403, { error: 'Forbidden' });
    return ext === 'mp4' ? sendBytes(res, 'video/mp4', await sampleMp4()) : sendBytes(res, 'image/png', await samplePng());
  }

  async function api(req: http.IncomingMessage, raw: Buffer, res: http.ServerResponse, path: string): Promise<void> {
    // https://docs.dev.runwayml.com/errors/errors/: 401 for a key that is not valid, 400 with an `error` member,
    // 502/503 when Runway sheds load, 504 when it is overloaded.
    if (req.headers.authorization !== `Bearer ${apiKey}`) return sendJson(res, 401, { error: 'Invalid API key.' });
    if (req.headers['x-runway-version'] !== RUNWAY_VERSION) {
      return sendJson(res, 400, { error: `The X-Runway-Version header must be set to a supported version, such as ${RUNWAY_VERSION}.` });
    }
    const failure = failures.shift();
    if (failure !== undefined) return sendJson(res, failure, { error: 'Runway is temporarily unable to handle the request. Please retry.' });
    const creating = /^\/v1\/(text_to_image|image_to_video)$/.exec(path);
    if (creating) return req.method === 'POST' ? create(creating[1], raw, res) : sendJson(res, 405, { error: 'Method not allowed.' });
    const task = /^\/v1\/tasks\/([^/]+)$/.exec(path);
    if (task) return taskRoute(req.method ?? 'GET', decodeURIComponent(task[1]), res);
    if (path === '/v1/uploads' && req.method === 'POST') return startUpload(raw, res);
    sendJson(res, 404, { error: 'Not found.' });
  }

  const server = await startServer(async (req, raw, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method === 'GET' && url.pathname.startsWith('/outputs/')) return serveOutput(url.pathname.slice('/outputs/'.length), url.searchParams.get('_jwt'), res);
    if (req.method === 'POST' && url.pathname === '/storage/uploads') return receiveUpload(req, raw, res);
    if (stallMs > 0) {
      const ms = stallMs;
      stallMs = 0;
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
    if (drops > 0) {
      // The request is handled (a task may be created) but its answer never leaves.
      drops -= 1;
      req.socket.destroy();
    }
    await api(req, raw, res, url.pathname);
  }, fake.requests);
  base = server.url;

  return Object.assign(fake, { url: server.url, env: { RUNWAYML_API_SECRET: apiKey, RUNWAYML_BASE_URL: server.url }, close: server.close, down: server.down, up: server.up });
}
