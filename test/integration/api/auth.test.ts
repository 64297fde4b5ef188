import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { revokeApiKey } from '../../../src/accounts/service';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { request, startTestApi } from '../../support/api';
import { eventually } from '../../support/eventually';

describe('authentication and scopes', () => {
  let api: RunningApi;
  let full: TestAccount;
  let uploadOnly: TestAccount;

  beforeAll(async () => {
    api = await startTestApi();
    full = await createTestAccount(api.deps.prisma);
    uploadOnly = await createTestAccount(api.deps.prisma, { scopes: ['upload'] });
  });
  afterAll(() => api?.stop());

  const expectError = (res: { status: number; body: any }, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ success: false, error: { code } });
    expect(typeof res.body.error.message).toBe('string');
    expect(res.body.requestId).toMatch(/\S/);
  };

  it('answers 401 UNAUTHORIZED without a key', async () => {
    expectError(await request(`${api.url}/v1/jobs`), 401, 'UNAUTHORIZED');
    expectError(await request(`${api.url}/v1/models`), 401, 'UNAUTHORIZED');
  });

  it('answers 401 for an unknown key and a malformed Authorization header', async () => {
    expectError(await request(`${api.url}/v1/jobs`, { headers: { authorization: 'Bearer gm_doesnotexist' } }), 401, 'UNAUTHORIZED');
    expectError(await request(`${api.url}/v1/jobs`, { headers: { authorization: full.apiKey } }), 401, 'UNAUTHORIZED');
    expectError(await request(`${api.url}/v1/models`, { headers: { 'x-api-key': 'gm_doesnotexist' } }), 401, 'UNAUTHORIZED');
  });

  it('takes each endpoint’s documented header and says which one when another is used', async () => {
    const res = await request(`${api.url}/v1/models`, { headers: { authorization: `Bearer ${full.apiKey}` } });
    expectError(res, 401, 'UNAUTHORIZED');
    expect(res.body.error.message).toContain('x-api-key');
  });

  it('accepts a valid key with the scope', async () => {
    expect((await request(`${api.url}/v1/jobs`, { headers: { authorization: `Bearer ${full.apiKey}` } })).status).toBe(200);
    expect((await request(`${api.url}/v1/models`, { headers: { 'x-api-key': full.apiKey } })).status).toBe(200);
  });

  it('answers 403 INSUFFICIENT_SCOPE when the key lacks the scope', async () => {
    const jobs = await request(`${api.url}/v1/jobs`, { headers: { authorization: `Bearer ${uploadOnly.apiKey}` } });
    expectError(jobs, 403, 'INSUFFICIENT_SCOPE');
    expect(jobs.body.error.details).toMatchObject({ requiredScope: 'check_status' });
    expectError(await request(`${api.url}/v1/models`, { headers: { 'x-api-key': uploadOnly.apiKey } }), 403, 'INSUFFICIENT_SCOPE');
  });

  it('refuses a revoked key with 401 within the key cache time (api.keyCacheTtlMs)', async () => {
    const doomed = await createTestAccount(api.deps.prisma);
    const headers = { authorization: `Bearer ${doomed.apiKey}` };
    expect((await request(`${api.url}/v1/jobs`, { headers })).status).toBe(200);
    expect(await revokeApiKey(api.deps.prisma, doomed.keyId)).toBe(true);
    const revokedAt = Date.now();
    const res = await eventually(async () => {
      const answer = await request(`${api.url}/v1/jobs`, { headers });
      return answer.status === 401 ? answer : undefined;
    }, 5_000, 50, 'the revoked key refused');
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(api.deps.config.api.keyCacheTtlMs + 500);
    expectError(res, 401, 'UNAUTHORIZED');
    expect(res.body.error.message).toMatch(/revoked/);
  });

  it('stores only a hash of the key', async () => {
    const row = await api.deps.prisma.apiKey.findUniqueOrThrow({ where: { id: full.keyId } });
    expect(row.hash).not.toContain(full.apiKey);
    expect(full.apiKey.startsWith(row.prefix)).toBe(true);
    expect(row.prefix.length).toBeLessThan(full.apiKey.length / 2);
  });
});
