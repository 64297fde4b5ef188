import { request, type JsonResponse } from '../../support/api';

export const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';
export const ELEMENTS_VIDEO = 'motionworks/reel-2/image-to-video-elements';

export function bearer(apiKey: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...extra };
}

export function post<T = any>(url: string, apiKey: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonResponse<T>> {
  return request<T>(url, { method: 'POST', headers: bearer(apiKey, headers), body: body === undefined ? undefined : JSON.stringify(body) });
}

export function get<T = any>(url: string, apiKey: string): Promise<JsonResponse<T>> {
  return request<T>(url, { headers: bearer(apiKey) });
}

export function imageJob(overrides: Record<string, unknown> = {}) {
  return { model: TEXT_TO_IMAGE, input: { prompt: 'a lighthouse at dusk', ...overrides } };
}
