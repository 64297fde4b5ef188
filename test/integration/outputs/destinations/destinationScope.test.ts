/**
 * Who may change an account's destination, and how often it may be probed, against the real API, PostgreSQL and
 * MinIO: only a key with `manage_outputs` and no model limit sets or removes it (a `submit_job` key is refused 403
 * `INSUFFICIENT_SCOPE`, a model-limited key 403 `KEY_MODEL_LIMITED`), every change is in the operator audit log with
 * the key that made it and never the secret, and the probe past the account's limit of the hour is answered 429
 * `DESTINATION_PROBE_LIMIT_EXCEEDED` with Retry-After, sending nothing.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../../src/api/server';
import { createApiKey } from '../../../../src/accounts/service';
import { createStorage, type Storage } from '../../../../src/storage/storage';
import { bearer, request, startTestApi } from '../../../support/api';
import { createAdminKey, createTestAccount, type TestAccount } from '../../../support/accounts';

const PROBES_PER_HOUR = 3;
const bucket = `dest-scope-${randomBytes(4).toString('hex')}`;

let api: RunningApi;
let root: Storage;
let adminKey: string;

function settings() {
  const { minio } = api.deps.config;
  return { endpoint: minio.endpoint, region: minio.region, bucket, prefix: 'out', accessKeyId: minio.accessKey, secretAccessKey: minio.secretKey };
}

function put(account: TestAccount, body: unknown = settings()) {
  return request(`${api.url}/v1/account/destination`, { method: 'PUT', headers: bearer(account.apiKey), body: JSON.stringify(body) });
}

function remove(account: TestAccount) {
  return request(`${api.url}/v1/account/destination`, { method: 'DELETE', headers: bearer(account.apiKey) });
}

async function saved(account: TestAccount) {
  return api.deps.prisma.accountDestination.findUnique({ where: { accountId: account.accountId } });
}

async function auditOf(account: TestAccount) {
  const answer = await request(`${api.url}/v1/admin/audit?targetId=${account.accountId}`, { headers: bearer(adminKey) });
  expect(answer.status).toBe(200);
  return answer.body.entries as { action: string; targetType: string; actorKeyId: string; actorAccountId: string; before: unknown; after: unknown; requestId: string }[];
}

beforeAll(async () => {
  api = await startTestApi({ INPUT_FETCH_ALLOW_PRIVATE: '1' }, { destinations: { probesPerHour: PROBES_PER_HOUR } });
  root = createStorage(api.deps.config.minio);
  await root.client.makeBucket(bucket, api.deps.config.minio.region);
  adminKey = await createAdminKey(api.deps.prisma);
}, 60_000);

afterAll(async () => {
  await root?.removePrefix(bucket, '').catch(() => undefined);
  await root?.client.removeBucket(bucket).catch(() => undefined);
  await api?.stop();
});

describe('who may change the destination', () => {
  it('refuses a key with submit_job but not manage_outputs, 403 INSUFFICIENT_SCOPE, for setting and for removing', async () => {
    const account = await createTestAccount(api.deps.prisma, { scopes: ['submit_job', 'check_status', 'list_models', 'upload'] });
    const refused = await put(account);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { requiredScope: 'manage_outputs' } });
    expect(await saved(account)).toBeNull();

    // Configured by another means, it stays: the submit_job key cannot take it away either.
    const manager = await createApiKey(api.deps.prisma, { accountId: account.accountId, scopes: ['manage_outputs'] });
    expect((await put({ ...account, apiKey: manager.apiKey })).status).toBe(200);
    const removal = await remove(account);
    expect([removal.status, removal.body.error?.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    expect(await saved(account)).not.toBeNull();
    // Reading it still needs only check_status.
    expect((await request(`${api.url}/v1/account/destination`, { headers: bearer(account.apiKey) })).status).toBe(200);
  });

  it('refuses a model-limited key even with manage_outputs, 403 KEY_MODEL_LIMITED', async () => {
    const account = await createTestAccount(api.deps.prisma, { keyModels: ['flux-schnell'] });
    const refused = await put(account);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'KEY_MODEL_LIMITED', details: { allowedModels: ['flux-schnell'] } });
    expect((await remove(account)).body.error.code).toBe('KEY_MODEL_LIMITED');
    expect(await saved(account)).toBeNull();
  });

  it('sets and removes it with a manage_outputs key, and the audit log has both changes, by that key, without the secret', async () => {
    const account = await createTestAccount(api.deps.prisma, { scopes: ['manage_outputs'] });
    const set = await put(account);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const removed = await remove(account);
    expect(removed.status).toBe(204);
    // Removing nothing changes nothing and audits nothing.
    expect((await remove(account)).status).toBe(204);

    const entries = await auditOf(account);
    expect(entries.map((e) => e.action)).toEqual(['destination.remove', 'destination.set']);
    const { minio } = api.deps.config;
    const visible = { endpoint: minio.endpoint, region: minio.region, bucket, prefix: 'out/', accessKeyId: minio.accessKey, configuredAt: set.body.configuredAt };
    expect(entries[1]).toMatchObject({ targetType: 'destination', actorKeyId: account.keyId, actorAccountId: account.accountId, before: null, after: visible });
    expect(entries[1].requestId).toMatch(/^req_/);
    expect(entries[0]).toMatchObject({ targetType: 'destination', actorKeyId: account.keyId, before: visible, after: null });
    expect(JSON.stringify(entries)).not.toContain(minio.secretKey);
  });

  it('refuses to issue a model-limited key with manage_outputs through the operator API', async () => {
    const account = await createTestAccount(api.deps.prisma);
    const refused = await request(`${api.url}/v1/admin/accounts/${account.accountId}/keys`, {
      method: 'POST',
      headers: bearer(adminKey),
      body: JSON.stringify({ scopes: ['submit_job', 'manage_outputs'], allowedModels: ['flux-schnell'] }),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(refused.body.error.details)).toContain('manage_outputs');

    const issued = await request(`${api.url}/v1/admin/accounts/${account.accountId}/keys`, {
      method: 'POST',
      headers: bearer(adminKey),
      body: JSON.stringify({ scopes: ['manage_outputs'] }),
    });
    expect(issued.status).toBe(201);
    expect(issued.body.key.scopes).toEqual(['manage_outputs']);
    expect((await put({ ...account, apiKey: issued.body.apiKey })).status).toBe(200);
  });
});

describe('probes per account and hour', () => {
  it('answers the probe past the limit 429 DESTINATION_PROBE_LIMIT_EXCEEDED with Retry-After, sending nothing; other accounts go on', async () => {
    // An endpoint that counts what reaches it: refused probes must not.
    let reached = 0;
    const endpoint = http.createServer((req, res) => {
      reached += 1;
      req.resume();
      res.writeHead(403, { 'Content-Type': 'application/xml' }).end('<Error><Code>AccessDenied</Code><Message>no</Message></Error>');
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    try {
      const counting = { ...settings(), endpoint: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}` };
      const account = await createTestAccount(api.deps.prisma);
      for (let i = 0; i < PROBES_PER_HOUR; i += 1) {
        const failed = await put(account, counting);
        expect([failed.status, failed.body.error.code]).toEqual([422, 'DESTINATION_ACCESS_DENIED']);
      }
      const reachedBefore = reached;
      expect(reachedBefore).toBeGreaterThanOrEqual(PROBES_PER_HOUR);

      const limited = await put(account, counting);
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ code: 'DESTINATION_PROBE_LIMIT_EXCEEDED', details: { limit: PROBES_PER_HOUR, window: 'hour' } });
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(limited.body.error.details.retryAfterSeconds).toBe(retryAfter);
      // A good destination is refused too, and nothing reached either endpoint or was saved.
      expect((await put(account)).status).toBe(429);
      expect(reached).toBe(reachedBefore);
      expect(await saved(account)).toBeNull();

      // The limit is the account's own.
      const other = await createTestAccount(api.deps.prisma);
      expect((await put(other)).status).toBe(200);
    } finally {
      endpoint.close();
    }
  });
});
