import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { createTestAccount } from '../../support/accounts';
import { request, startTestApi } from '../../support/api';

describe('error body and request ids', () => {
  let api: RunningApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api?.stop());

  it('answers unknown routes with NOT_FOUND in the documented body', async () => {
    const res = await request(`${api.url}/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: expect.stringContaining('/v1/nothing-here') },
      requestId: res.headers.get('x-request-id'),
    });
  });

  it('answers malformed JSON with VALIDATION_ERROR, not a 500 or a stack trace', async () => {
    const { apiKey } = await createTestAccount(api.deps.prisma);
    const res = await request(`${api.url}/v1/jobs/submit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: '{"model": ',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it('refuses unknown top-level fields, so a misspelt field is never silently ignored', async () => {
    const { apiKey, accountId } = await createTestAccount(api.deps.prisma);
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const cases: [string, unknown][] = [
      ['/v1/jobs/submit', { model: 'pixelforge/forge-pro/text-to-image', input: { prompt: 'x' }, webhookURL: 'https://example.com/h' }],
      ['/v1/jobs/estimate', { model: 'pixelforge/forge-pro/text-to-image', inputs: { num_images: '2' } }],
      ['/v1/uploads/presign', { filename: 'a.png', contentType: 'image/png', sizeBytes: 10 }],
    ];
    for (const [path, body] of cases) {
      const res = await request(`${api.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe('VALIDATION_ERROR');
      expect(res.body.error.message, path).toMatch(/webhookURL|inputs|sizeBytes/);
    }
    expect(await api.deps.prisma.job.count({ where: { accountId } })).toBe(0);
  });

  it('answers a JSON body that is not an object with VALIDATION_ERROR', async () => {
    const { apiKey } = await createTestAccount(api.deps.prisma);
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    for (const body of ['"text"', 'null', '42']) {
      const res = await request(`${api.url}/v1/jobs/submit`, { method: 'POST', headers, body });
      expect(res.status, body).toBe(400);
      expect(res.body.error.code, body).toBe('VALIDATION_ERROR');
    }
  });

  it('refuses NUL characters and malformed percent-encoding anywhere in a request with VALIDATION_ERROR', async () => {
    const { apiKey, accountId } = await createTestAccount(api.deps.prisma);
    const auth = { authorization: `Bearer ${apiKey}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const cases: [string, RequestInit, string][] = [
      ['/v1/jobs/%00', { headers: auth }, 'path'],
      ['/v1/jobs/job_x%00/cancel', { method: 'POST', headers: auth }, 'path'],
      ['/v1/jobs?model=a%00b', { headers: auth }, 'query.model'],
      ['/v1/jobs/submit', { method: 'POST', headers: json, body: '{"model":"pixelforge/forge-pro/text-to-image","input":{"prompt":"a\\u0000b"}}' }, 'body.input.prompt'],
      ['/v1/jobs/submit', { method: 'POST', headers: { ...json, 'idempotency-key': 'k1' }, body: '{"model":"x\\u0000","input":{}}' }, 'body.model'],
      ['/v1/jobs/%E0%A4%A', { headers: auth }, ''],
      ['/v1/models/%ZZ', { headers: { 'x-api-key': apiKey } }, ''],
    ];
    for (const [path, init, where] of cases) {
      const res = await request(`${api.url}${path}`, init);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe('VALIDATION_ERROR');
      if (where) expect(res.body.error.details, path).toEqual([{ path: where, message: expect.stringContaining('NUL') }]);
    }
    expect(await api.deps.prisma.job.count({ where: { accountId } })).toBe(0);
  });

  it('answers an oversized body with 413 PAYLOAD_TOO_LARGE, and a body without a key 401 unread', async () => {
    const { apiKey } = await createTestAccount(api.deps.prisma);
    const body = JSON.stringify({ pad: 'x'.repeat(2_000_000) });
    const res = await request(`${api.url}/v1/jobs/submit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { maxBytes: 1024 * 1024 } });
    const anonymous = await request(`${api.url}/v1/jobs/submit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(anonymous.status).toBe(401);
  });

  it('echoes a given X-Request-Id and assigns one otherwise', async () => {
    const echoed = await request(`${api.url}/healthz`, { headers: { 'x-request-id': 'client-req-42' } });
    expect(echoed.headers.get('x-request-id')).toBe('client-req-42');
    const assigned = await request(`${api.url}/healthz`);
    expect(assigned.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]{20}$/);
    const rejected = await request(`${api.url}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(rejected.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('serves an OpenAPI 3.1 document that lists the routes', async () => {
    const res = await request(`${api.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    for (const path of ['/healthz', '/readyz', '/v1/jobs/submit', '/v1/jobs', '/v1/uploads/presign', '/v1/catalog/models', '/v1/models']) {
      expect(Object.keys(res.body.paths)).toContain(path);
    }
    expect(res.body.components.schemas.Error).toBeDefined();
  });
});
