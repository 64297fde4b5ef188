/**
 * The Runway API on loopback, from https://docs.dev.runwayml.com/api/: `POST /v1/image_to_video` and
 * `POST /v1/text_to_image` create tasks, `GET /v1/tasks/{id}` reads one (PENDING, THROTTLED, RUNNING with
 * progress, SUCCEEDED with output URLs, FAILED with failure and failureCode, CANCELLED), `DELETE` cancels it.
 * Every request must carry `X-Runway-Version`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { fakeBookkeeping, sendBytes, sendJson, startServer } from './http';
import { sampleMp4, samplePng, scenarioOf } from './media';
import type { FakeUpstream } from './types';

interface FakeTask {
  id: string;
  kind: 'video' | 'image';
  createdAt: number;
  scenario: Set<string>;
  cancelled: boolean;
  body: Record<string, unknown>;
}

const PENDING_MS = 250;
const RUN_MS = 700;
const CREDITS = { video: 25, image: 8 };

export interface RunwayFake extends FakeUpstream {
  tasks(): FakeTask[];
}

export async function startRunwayFake(): Promise<RunwayFake> {
  const apiKey = `key_${randomBytes(16).toString('hex')}`;
  const book = fakeBookkeeping(apiKey);
  const tasks = new Map<string, FakeTask>();
  let base = '';

  const fake = {
    ...book.shared,
    tasks: () => [...tasks.values()],
  };

  /** The task as GET /v1/tasks/{id} answers (https://docs.dev.runwayml.com/api/#tag/Task-management). */
  function view(task: FakeTask) {
    const common = { id: task.id, createdAt: new Date(task.createdAt).toISOString() };
    const age = Date.now() - task.createdAt;
    if (task.cancelled) return { ...common, status: 'CANCELLED', cost: { credits: 0 } };
    if (age < PENDING_MS) return { ...common, status: 'PENDING', estimatedCost: { credits: CREDITS[task.kind] } };
    if (task.scenario.has('content-policy')) {
      return { ...common, status: 'FAILED', failure: 'The prompt did not pass our content moderation.', failureCode: 'SAFETY.INPUT.TEXT', cost: { credits: 0 } };
    }
    if (task.scenario.has('fail')) {
      return { ...common, status: 'FAILED', failure: 'An unexpected error occurred.', failureCode: 'INTERNAL', cost: { credits: 0 } };
    }
    const runFor = task.scenario.has('slow') ? fake.slowMs : RUN_MS;
    if (task.scenario.has('slow') && age < runFor / 2) return { ...common, status: 'THROTTLED', estimatedCost: { credits: CREDITS[task.kind] } };
    if (age < runFor) return { ...common, status: 'RUNNING', progress: Math.min(0.99, age / runFor) };
    const file = task.kind === 'video' ? 'output.mp4' : 'output.png';
    return { ...common, status: 'SUCCEEDED', output: [`${base}/files/${task.id}/${file}`], cost: { credits: CREDITS[task.kind] } };
  }

  function create(body: Buffer, res: http.ServerResponse, kind: FakeTask['kind']): void {
    const params = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    const scenario = scenarioOf(params.promptText);
    if (book.rateLimitsNow(params.promptText, scenario)) {
      return sendJson(res, 429, { error: 'You have exceeded the rate limit for this endpoint. Please try again later.' }, { 'retry-after': '1' });
    }
    const missing = kind === 'video' ? !params.promptImage : !params.promptText;
    if (scenario.has('invalid') || missing || typeof params.model !== 'string') {
      // https://docs.dev.runwayml.com/errors/errors/ (400: the request body failed validation)
      return sendJson(res, 400, { error: 'Validation of body failed', issues: [{ code: 'invalid_type', path: ['promptImage'], message: 'Required' }] });
    }
    book.pay();
    const task: FakeTask = { id: randomUUID(), kind, createdAt: Date.now(), scenario, cancelled: false, body: params };
    tasks.set(task.id, task);
    sendJson(res, 200, { id: task.id });
  }

  const server = await startServer(async (req, body, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const files = /^\/files\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && files) {
      if (!tasks.has(files[1])) return sendJson(res, 404, { error: 'Not found' });
      return files[2].endsWith('.mp4') ? sendBytes(res, 'video/mp4', await sampleMp4()) : sendBytes(res, 'image/png', await samplePng());
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) return sendJson(res, 401, { error: 'Invalid API key.' });
    if (!req.headers['x-runway-version']) return sendJson(res, 400, { error: 'The X-Runway-Version header is required.' });
    if (req.method === 'POST' && url.pathname === '/v1/image_to_video') return create(body, res, 'video');
    if (req.method === 'POST' && url.pathname === '/v1/text_to_image') return create(body, res, 'image');
    const one = /^\/v1\/tasks\/([^/]+)$/.exec(url.pathname);
    const task = one ? tasks.get(one[1]) : undefined;
    if (one && !task) return sendJson(res, 404, { error: 'Task not found.' });
    if (task && req.method === 'GET') return sendJson(res, 200, view(task));
    if (task && req.method === 'DELETE') {
      book.cancel();
      task.cancelled = true;
      res.writeHead(204).end();
      return;
    }
    sendJson(res, 404, { error: 'Not found' });
  }, fake.requests);
  base = server.url;

  return Object.assign(fake, { url: server.url, env: { RUNWAYML_API_SECRET: apiKey, RUNWAYML_BASE_URL: server.url }, close: server.close });
}
