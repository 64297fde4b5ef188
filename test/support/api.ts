import http from 'node:http';
import { loadConfig, type Config, type TuningOverride } from '../../src/config';
import { createApp } from '../../src/api/app';
import { applyHttpTimeouts, createApiDeps, listen, runningApi, type RunningApi } from '../../src/api/server';
import { TERMINAL_JOB_STATUSES, type JobStatus } from '../../src/shared/jobs';
import { eventually } from './eventually';
import { checkResponseContract } from './responseContract';

/**
 * Starts the real API in-process on a free port. Its config is built once the port is known, with that
 * address as PUBLIC_BASE_URL, so the file URLs it hands out point back at it.
 */
export async function startTestApiWith(configFor: (publicBaseUrl: string) => Config): Promise<RunningApi> {
  const server = http.createServer();
  const url = await listen(server, 0, '127.0.0.1');
  const deps = await createApiDeps(configFor(url));
  applyHttpTimeouts(server, deps.config);
  server.on('request', createApp(deps));
  const api = await runningApi(server, url, deps);
  return {
    ...api,
    async stop() {
      // The drain waits for every open connection; a test API is stopped at the end of its file, where a response a
      // client gave up on can hold one open until the keep-alive timeout (65 s). After 1 s they are closed.
      const cut = setTimeout(() => server.closeAllConnections(), TEST_DRAIN_MS);
      try {
        await api.stop();
      } finally {
        clearTimeout(cut);
      }
    },
  };
}

/** How long a test API's stop lets open connections finish before it closes them. */
const TEST_DRAIN_MS = 1_000;

/** The real API against the services the test harness started, with `overrides` on top of its environment. */
export function startTestApi(overrides: NodeJS.ProcessEnv = {}, tuning?: TuningOverride): Promise<RunningApi> {
  return startTestApiWith((url) =>
    loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', PUBLIC_BASE_URL: url, ...overrides }, { tuning }),
  );
}

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** fetch + JSON parse, for assertions on status, headers and body together. */
export async function request<T = any>(url: string, init: RequestInit = {}): Promise<JsonResponse<T>> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: any = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  checkResponseContract(init.method ?? 'GET', url, res.status, res.headers.get('content-type'), body);
  return { status: res.status, headers: res.headers, body };
}

export function bearer(apiKey: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...extra };
}

/** POST with a Bearer key and a JSON body. */
export function post<T = any>(url: string, apiKey: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonResponse<T>> {
  return request<T>(url, { method: 'POST', headers: bearer(apiKey, headers), body: body === undefined ? undefined : JSON.stringify(body) });
}

/** GET with a Bearer key. */
export function get<T = any>(url: string, apiKey: string): Promise<JsonResponse<T>> {
  return request<T>(url, { headers: bearer(apiKey) });
}

/** Polls `GET /v1/jobs/{jobId}` until the job is completed, failed or cancelled; returns that record. */
export function waitForFinal(api: { url: string }, apiKey: string, jobId: string, timeoutMs = 60_000): Promise<any> {
  return eventually(async () => {
    const res = await get(`${api.url}/v1/jobs/${jobId}`, apiKey);
    return TERMINAL_JOB_STATUSES.includes(res.body?.status as JobStatus) ? res.body : undefined;
  }, timeoutMs, 100);
}
