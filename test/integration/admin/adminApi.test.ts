/**
 * The operator API end to end against the real stack: a tenant's whole life (account, key, credits after a payment,
 * a daily limit, usage, revoke), spend limits decided under the account's lock, and the audit log. Every answer goes
 * through `request()`, which checks it against the OpenAPI document. No provider worker runs, so submitted jobs stay
 * `pending`; cancelling one refunds it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../src/api/openapi';
import { bearer, get, post, request } from '../../support/api';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';
import { createAdminKey } from '../../support/accounts';

const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';
const ONE_IMAGE = 45_000;

let stack: TestStack;
let adminKey: string;

beforeAll(async () => {
  stack = await startTestStack();
  // As `genmedia admin keys create --scopes admin` does on the host.
  adminKey = await createAdminKey(stack.prisma);
});

afterAll(async () => {
  await stack?.stop();
});

const admin = (path: string) => `${stack.url}/v1/admin${path}`;

function send(method: string, url: string, apiKey: string, body?: unknown, headers: Record<string, string> = {}) {
  return request(url, { method, headers: bearer(apiKey, headers), body: body === undefined ? undefined : JSON.stringify(body) });
}

function submit(apiKey: string) {
  return post(`${stack.url}/v1/jobs/submit`, apiKey, { model: TEXT_TO_IMAGE, input: { prompt: 'a lighthouse', num_images: '1' } });
}

async function newTenant(name: string, extra: Record<string, unknown> = {}) {
  const created = await post(admin('/accounts'), adminKey, { name, maxConcurrentJobs: 50, ...extra });
  expect(created.status).toBe(201);
  return created.body.accountId as string;
}

async function issueKey(accountId: string, extra: Record<string, unknown> = {}) {
  const issued = await post(admin(`/accounts/${accountId}/keys`), adminKey, { scopes: ['submit_job', 'check_status'], ...extra });
  expect(issued.status).toBe(201);
  return issued.body as { key: { keyId: string }; apiKey: string };
}

async function credit(accountId: string, amountMicroCents: number, idempotencyKey = `pay-${Math.random()}`) {
  const granted = await post(admin(`/accounts/${accountId}/credits`), adminKey, { amountMicroCents, reason: 'payment' }, { 'idempotency-key': idempotencyKey });
  expect(granted.status).toBe(201);
  return granted;
}

describe('the operator API', () => {
  it("runs a tenant's whole life: sign-up, key, credits after a payment (once), a daily limit, a refund that gives the budget back, usage, revoke", async () => {
    const accountId = await newTenant('Acme Studios', { plan: 'standard', segments: ['beta'] });
    const found = await get(admin(`/accounts?search=${encodeURIComponent('acme stud')}`), adminKey);
    expect(found.status).toBe(200);
    expect(found.body.accounts.map((a: { accountId: string }) => a.accountId)).toContain(accountId);

    const { key, apiKey } = await issueKey(accountId, { name: 'backend' });
    expect((await get(`${stack.url}/v1/account`, apiKey)).status).toBe(200);

    // The payment webhook arrives twice: one credit.
    const first = await post(admin(`/accounts/${accountId}/credits`), adminKey, { amountMicroCents: 1_000_000, reason: 'payment', reference: 'pi_1' }, { 'idempotency-key': 'pi_1' });
    const again = await post(admin(`/accounts/${accountId}/credits`), adminKey, { amountMicroCents: 1_000_000, reason: 'payment', reference: 'pi_1' }, { 'idempotency-key': 'pi_1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(first.body.entry).toMatchObject({ kind: 'topup', amountMicroCents: 1_000_000, reference: 'pi_1', reason: 'payment' });
    const reused = await post(admin(`/accounts/${accountId}/credits`), adminKey, { amountMicroCents: 5, reason: 'payment' }, { 'idempotency-key': 'pi_1' });
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await get(admin(`/accounts/${accountId}`), adminKey)).body.balanceMicroCents).toBe(1_000_000);

    // A daily limit of three images.
    const limited = await send('PATCH', admin(`/accounts/${accountId}`), adminKey, { spendLimits: { dailyMicroCents: 3 * ONE_IMAGE } });
    expect(limited.status).toBe(200);
    expect(limited.body.spendLimits).toMatchObject({ dailyMicroCents: 3 * ONE_IMAGE, monthlyMicroCents: null });

    const jobs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ok = await submit(apiKey);
      expect(ok.status).toBe(201);
      jobs.push(ok.body.jobId);
    }
    const refused = await submit(apiKey);
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('BUDGET_EXCEEDED');
    const tomorrow = new Date();
    tomorrow.setUTCHours(24, 0, 0, 0);
    expect(refused.body.error.details).toEqual({
      limit: 'account_daily',
      limitMicroCents: 3 * ONE_IMAGE,
      spentMicroCents: 3 * ONE_IMAGE,
      costMicroCents: ONE_IMAGE,
      resetsAt: tomorrow.toISOString(),
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    const view = await get(`${stack.url}/v1/account`, apiKey);
    expect(view.body.spendLimits.account.states).toEqual([
      { limit: 'account_daily', limitMicroCents: 3 * ONE_IMAGE, spentMicroCents: 3 * ONE_IMAGE, remainingMicroCents: 0, resetsAt: tomorrow.toISOString() },
    ]);

    // A refund gives the spend back.
    expect((await post(`${stack.url}/v1/jobs/${jobs[0]}/cancel`, apiKey)).status).toBe(200);
    expect((await get(`${stack.url}/v1/account`, apiKey)).body.spendLimits.account.states[0].remainingMicroCents).toBe(ONE_IMAGE);
    const afterRefund = await submit(apiKey);
    expect(afterRefund.status).toBe(201);
    jobs.push(afterRefund.body.jobId);

    // The usage report agrees with the ledger to the micro-cent.
    const ledger = await get(admin(`/accounts/${accountId}/ledger?limit=100`), adminKey);
    const sum = (kind: string) =>
      ledger.body.entries.filter((e: { kind: string }) => e.kind === kind).reduce((total: number, e: { amountMicroCents: number }) => total + e.amountMicroCents, 0);
    const usage = await get(admin(`/usage?groupBy=account,key,model&accountId=${accountId}`), adminKey);
    expect(usage.status).toBe(200);
    expect(usage.body.rows).toEqual([
      {
        accountId,
        keyId: key.keyId,
        model: TEXT_TO_IMAGE,
        chargedMicroCents: -sum('charge'),
        refundedMicroCents: sum('refund'),
        netMicroCents: -sum('charge') - sum('refund'),
        jobs: 4,
        refundedJobs: 1,
      },
    ]);
    expect(usage.body.totals.chargedMicroCents).toBe(4 * ONE_IMAGE);
    const csv = await fetch(admin(`/usage?groupBy=day,model&accountId=${accountId}&format=csv`), { headers: bearer(adminKey) });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const today = new Date().toISOString().slice(0, 10);
    expect(await csv.text()).toBe(
      `day,model,chargedMicroCents,refundedMicroCents,netMicroCents,jobs,refundedJobs\r\n${today},${TEXT_TO_IMAGE},${4 * ONE_IMAGE},${ONE_IMAGE},${3 * ONE_IMAGE},4,1\r\n`,
    );

    // Revoked: refused within the key cache's 2 s.
    const revoked = await send('DELETE', admin(`/keys/${key.keyId}`), adminKey);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
    const revokedAt = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - revokedAt < 5_000) {
      status = (await get(`${stack.url}/v1/account`, apiKey)).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(2_500);

    const audit = await get(admin(`/audit?targetId=${accountId}`), adminKey);
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(['account.update', 'credits.grant', 'account.create']);
    const update = audit.body.entries[0];
    expect(update.before).toMatchObject({ dailyLimitMicroCents: null });
    expect(update.after).toMatchObject({ dailyLimitMicroCents: 3 * ONE_IMAGE });
    const keyAudit = await get(admin(`/audit?targetId=${key.keyId}`), adminKey);
    expect(keyAudit.body.entries.map((e: { action: string }) => e.action)).toEqual(['key.revoke', 'key.create']);
  });

  it("refuses a key's own daily limit with its details, and lets the account's other keys go on", async () => {
    const accountId = await newTenant('two keys');
    await credit(accountId, 10_000_000);
    const capped = await issueKey(accountId, { spendLimits: { dailyMicroCents: ONE_IMAGE } });
    const free = await issueKey(accountId);
    expect((await submit(capped.apiKey)).status).toBe(201);
    const refused = await submit(capped.apiKey);
    expect(refused.status).toBe(402);
    expect(refused.body.error.details).toMatchObject({ limit: 'key_daily', limitMicroCents: ONE_IMAGE, spentMicroCents: ONE_IMAGE });
    expect((await submit(free.apiKey)).status).toBe(201);
  });

  it('lets exactly as many of 30 parallel submits through as the limit fits (10)', async () => {
    const accountId = await newTenant('parallel', { spendLimits: { dailyMicroCents: 10 * ONE_IMAGE } });
    await credit(accountId, 10_000_000);
    const { apiKey } = await issueKey(accountId);
    const answers = await Promise.all(Array.from({ length: 30 }, () => submit(apiKey)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(20);
    expect(answers.filter((a) => a.status === 402).every((a) => a.body.error.code === 'BUDGET_EXCEEDED')).toBe(true);
    const account = await get(admin(`/accounts/${accountId}`), adminKey);
    expect(account.body.balanceMicroCents).toBe(10_000_000 - 10 * ONE_IMAGE);
    expect(account.body.spendLimits.spentTodayMicroCents).toBe(10 * ONE_IMAGE);
  });

  it('rotates a key: the new one works at once, the old one until the overlap ends, and the spend carries over', async () => {
    const accountId = await newTenant('rotation');
    await credit(accountId, 10_000_000);
    const old = await issueKey(accountId, { spendLimits: { dailyMicroCents: 2 * ONE_IMAGE } });
    expect((await submit(old.apiKey)).status).toBe(201);
    const rotated = await post(admin(`/keys/${old.key.keyId}/rotate`), adminKey, { overlapSeconds: 1 });
    expect(rotated.status).toBe(201);
    expect(rotated.body.previous).toMatchObject({ keyId: old.key.keyId, replacedBy: rotated.body.key.keyId });
    expect(rotated.body.key.spendLimits.spentTodayMicroCents).toBe(ONE_IMAGE);
    expect((await get(`${stack.url}/v1/account`, old.apiKey)).status).toBe(200);
    expect((await submit(rotated.body.apiKey)).status).toBe(201);
    // The carried-over spend fills the limit.
    expect((await submit(rotated.body.apiKey)).body.error?.code).toBe('BUDGET_EXCEEDED');
    // Refused once the overlap has ended, within the key cache's 2 s.
    const rotatedAt = Date.now();
    await expect.poll(async () => (await get(`${stack.url}/v1/account`, old.apiKey)).body.error?.message, { timeout: 5_000, interval: 100 }).toMatch(/expired/);
    expect(Date.now() - rotatedAt).toBeLessThan(1_000 + 2_500);
    const again = await post(admin(`/keys/${old.key.keyId}/rotate`), adminKey, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('KEY_REVOKED');
  });

  it('suspends an account: its keys are refused until the suspension is lifted', async () => {
    const accountId = await newTenant('suspended');
    const { apiKey } = await issueKey(accountId);
    expect((await send('PATCH', admin(`/accounts/${accountId}`), adminKey, { suspended: true })).body.suspended).toBe(true);
    await expect.poll(async () => (await get(`${stack.url}/v1/account`, apiKey)).body.error?.code, { timeout: 5_000, interval: 100 }).toBe('ACCOUNT_SUSPENDED');
    expect((await send('PATCH', admin(`/accounts/${accountId}`), adminKey, { suspended: false })).body.suspended).toBe(false);
    await expect.poll(async () => (await get(`${stack.url}/v1/account`, apiKey)).status, { timeout: 5_000, interval: 100 }).toBe(200);
  });

  it('takes credits back with an adjustment, never below zero', async () => {
    const accountId = await newTenant('corrections');
    await credit(accountId, 1_000);
    const taken = await credit(accountId, -400);
    expect(taken.body.entry).toMatchObject({ kind: 'adjustment', amountMicroCents: -400, balanceAfterMicroCents: 600 });
    const tooMuch = await post(admin(`/accounts/${accountId}/credits`), adminKey, { amountMicroCents: -601, reason: 'chargeback' });
    expect(tooMuch.status).toBe(402);
    expect(tooMuch.body.error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', details: { balanceMicroCents: 600 } });
  });

  it('answers bad input with the documented error, and unknown ids with 404', async () => {
    const accountId = await newTenant('validation');
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', '/accounts', {}, 400, 'VALIDATION_ERROR'],
      ['POST', '/accounts', { name: 'x', colour: 'red' }, 400, 'VALIDATION_ERROR'],
      ['PATCH', `/accounts/${accountId}`, {}, 400, 'VALIDATION_ERROR'],
      ['PATCH', `/accounts/${accountId}`, { spendLimits: { dailyMicroCents: -1 } }, 400, 'VALIDATION_ERROR'],
      ['PATCH', '/accounts/acc_nope', { name: 'x' }, 404, 'ACCOUNT_NOT_FOUND'],
      ['PATCH', `/accounts/${accountId}`, { plan: 'platinum' }, 400, 'VALIDATION_ERROR'],
      ['POST', '/accounts', { name: 'x', plan: 'platinum' }, 400, 'VALIDATION_ERROR'],
      ['POST', `/accounts/${accountId}/keys`, { scopes: [] }, 400, 'VALIDATION_ERROR'],
      ['POST', `/accounts/${accountId}/keys`, { scopes: ['root'] }, 400, 'VALIDATION_ERROR'],
      ['POST', `/accounts/${accountId}/keys`, { scopes: ['upload'], expiresAt: '2001-01-01T00:00:00Z' }, 400, 'VALIDATION_ERROR'],
      ['POST', '/accounts/acc_nope/keys', { scopes: ['upload'] }, 404, 'ACCOUNT_NOT_FOUND'],
      ['DELETE', '/keys/key_nope', undefined, 404, 'KEY_NOT_FOUND'],
      ['POST', `/accounts/${accountId}/credits`, { amountMicroCents: 0, reason: 'x' }, 400, 'VALIDATION_ERROR'],
      ['POST', `/accounts/${accountId}/credits`, { amountMicroCents: 1.5, reason: 'x' }, 400, 'VALIDATION_ERROR'],
      ['POST', `/accounts/${accountId}/credits`, { amountMicroCents: 10 }, 400, 'VALIDATION_ERROR'],
      ['GET', '/usage?groupBy=colour', undefined, 400, 'VALIDATION_ERROR'],
      ['GET', '/usage?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', undefined, 400, 'VALIDATION_ERROR'],
      ['GET', '/usage?from=yesterday', undefined, 400, 'VALIDATION_ERROR'],
      ['GET', '/accounts?cursor=forged', undefined, 400, 'INVALID_CURSOR'],
      ['GET', '/audit?limit=0', undefined, 400, 'VALIDATION_ERROR'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const res = await send(method, admin(path), adminKey, body);
      expect({ method, path, status: res.status, code: res.body?.error?.code }).toEqual({ method, path, status, code });
    }
  });

  it('refuses every admin route to a key without the admin scope (403) and to no key (401)', async () => {
    const tenant = await createTestAccount(stack.prisma);
    const document = buildOpenApiDocument(stack.url) as unknown as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/v1/admin/'))
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => [method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'x_1')] as const));
    expect(routes.length).toBeGreaterThanOrEqual(12);
    for (const [method, path] of routes) {
      const forbidden = await send(method, `${stack.url}${path}`, tenant.apiKey, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect({ method, path, status: forbidden.status, code: forbidden.body.error.code }).toEqual({ method, path, status: 403, code: 'INSUFFICIENT_SCOPE' });
      const anonymous = await request(`${stack.url}${path}`, { method });
      expect({ method, path, status: anonymous.status }).toEqual({ method, path, status: 401 });
    }
  });
});
