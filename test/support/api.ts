import { loadConfig, type Config } from '../../src/config';
import { createApiDeps, startApiServer, type RunningApi } from '../../src/api/server';

/** Starts the real API in-process on a free port against the services the test harness started. */
export async function startTestApi(overrides: NodeJS.ProcessEnv = {}): Promise<RunningApi> {
  const config: Config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', ...overrides });
  const deps = await createApiDeps(config);
  return startApiServer(deps, 0, '127.0.0.1');
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
  return { status: res.status, headers: res.headers, body };
}
