/**
 * The audit log of the operator API: every change writes its entry in the transaction of the change (an entry that
 * cannot be written undoes the change), a catalog change and a re-import record the target as it was, and the entry
 * carries the server's own request id with the client's `X-Request-Id` beside it. Models are imported from a schema
 * sent in the body (no Cog server is contacted) under slugs of their own, private, so no other test sees them.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { bearer, get, post, request } from '../../support/api';
import { startTestStack, type TestStack } from '../../support/stack';
import { createAdminKey } from '../../support/accounts';

const COG_SCHEMA = JSON.parse(readFileSync(path.join(REPO_ROOT, 'examples', 'cog', '.cog', 'openapi_schema.json'), 'utf8')) as Record<string, unknown>;

let stack: TestStack;
let adminKey: string;

beforeAll(async () => {
  stack = await startTestStack();
  adminKey = await createAdminKey(stack.prisma);
});

afterAll(async () => {
  await stack?.stop();
});

const admin = (p: string) => `${stack.url}/v1/admin${p}`;
const unique = () => randomUUID().replace(/-/g, '').slice(0, 12);

interface AuditEntry {
  action: string;
  targetType: string;
  targetId: string;
  before: any;
  after: any;
  requestId: string | null;
  clientRequestId: string | null;
}

async function auditOf(targetId: string): Promise<AuditEntry[]> {
  const audit = await get(admin(`/audit?targetId=${encodeURIComponent(targetId)}`), adminKey);
  expect(audit.status).toBe(200);
  return audit.body.entries;
}

function importCog(slug: string, extra: Record<string, unknown> = {}) {
  return post(admin('/models/import-cog'), adminKey, {
    url: 'http://10.77.0.5:5000',
    slug,
    priceMicroCents: 3_000,
    slots: 1,
    schema: COG_SCHEMA,
    visibility: 'private',
    ...extra,
  });
}

/** Makes PostgreSQL refuse every audit entry about `targetId` until the returned function is called. */
async function refuseAuditOf(targetId: string): Promise<() => Promise<void>> {
  const name = `refuse_audit_${unique()}`;
  const literal = `'${targetId.replace(/'/g, "''")}'`;
  await stack.prisma.$executeRawUnsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit refused'; END $$`);
  await stack.prisma.$executeRawUnsafe(`CREATE TRIGGER ${name} BEFORE INSERT ON audit_entries FOR EACH ROW WHEN (NEW.target_id = ${literal}) EXECUTE FUNCTION ${name}()`);
  return async () => {
    await stack.prisma.$executeRawUnsafe(`DROP TRIGGER ${name} ON audit_entries`);
    await stack.prisma.$executeRawUnsafe(`DROP FUNCTION ${name}()`);
  };
}

describe('the audit log', () => {
  it('records each catalog version-status change with the status before and after, the permanent deletion included', async () => {
    const slug = `audit${unique()}/status/text-to-image`;
    expect((await importCog(slug)).status).toBe(201);
    const disabled = await post(admin('/catalog/version-status'), adminKey, { model: slug, versionId: 'v1', status: 'disabled' });
    expect(disabled.status).toBe(200);
    const deleted = await post(admin('/catalog/version-status'), adminKey, { model: slug, versionId: 'v1', status: 'deleted' });
    expect(deleted.status).toBe(200);

    const entries = await auditOf(slug);
    expect(entries.map((e) => e.action)).toEqual(['model.version-status', 'model.version-status', 'model.import-cog']);
    expect(entries[0]).toMatchObject({ targetType: 'model', targetId: slug, before: { versionId: 'v1', status: 'disabled' }, after: { versionId: 'v1', status: 'deleted' } });
    expect(entries[1]).toMatchObject({ before: { versionId: 'v1', status: 'active' }, after: { versionId: 'v1', status: 'disabled' } });

    // A refused change (deletion is permanent) changes nothing and records nothing.
    const undelete = await post(admin('/catalog/version-status'), adminKey, { model: slug, versionId: 'v1', status: 'active' });
    expect(undelete.status).toBe(400);
    expect(await auditOf(slug)).toHaveLength(3);
  });

  it('records a re-import over a slug with the model and version as they were before', async () => {
    const slug = `audit${unique()}/reimport/text-to-image`;
    const first = await importCog(slug, { name: 'First import' });
    expect(first.status).toBe(201);
    const second = await importCog(slug, { name: 'Second import', priceMicroCents: 5_000, slots: 3 });
    expect(second.status).toBe(201);

    const [reimport, created] = await auditOf(slug);
    expect(created).toMatchObject({ action: 'model.import-cog', before: null });
    expect(created.after).toMatchObject({ slug, name: 'First import', versionId: 'v1', priceMicroCents: 3_000, slots: 1 });
    expect(reimport.action).toBe('model.import-cog');
    expect(reimport.before).toEqual(created.after);
    expect(reimport.after).toMatchObject({ slug, name: 'Second import', versionId: 'v1', status: 'active', priceMicroCents: 5_000, slots: 3 });
    expect(reimport.after.fields).toEqual([...first.body.fields].sort());
  });

  it('writes the webhook-secret rotation and its entry in one transaction: no entry, no rotation', async () => {
    const created = await post(admin('/accounts'), adminKey, { name: 'audited rotation' });
    expect(created.status).toBe(201);
    const accountId = created.body.accountId as string;
    const secretOf = async () => (await stack.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).webhookSecret;
    const original = await secretOf();

    const allow = await refuseAuditOf(accountId);
    try {
      const refused = await post(admin(`/accounts/${accountId}/webhook-secret/rotate`), adminKey);
      expect(refused.status).toBe(500);
      expect(refused.body.error.code).toBe('INTERNAL_ERROR');
    } finally {
      await allow();
    }
    expect(await secretOf()).toBe(original);

    const rotated = await post(admin(`/accounts/${accountId}/webhook-secret/rotate`), adminKey);
    expect(rotated.status).toBe(201);
    expect(await secretOf()).toBe(rotated.body.webhookSecret);
    const [entry] = await auditOf(accountId);
    expect(entry).toMatchObject({ action: 'account.rotate-webhook-secret', before: { rotatedAt: null }, after: { rotatedAt: rotated.body.rotatedAt } });
    expect(JSON.stringify(entry)).not.toContain(rotated.body.webhookSecret);
    expect(JSON.stringify(entry)).not.toContain(original);
  });

  it('writes an import and its entry in one transaction: no entry, no model, provider or server', async () => {
    const provider = `audit${unique()}`;
    const slug = `${provider}/atomic/text-to-image`;
    const allow = await refuseAuditOf(slug);
    try {
      const refused = await importCog(slug);
      expect(refused.status).toBe(500);
    } finally {
      await allow();
    }
    expect(await stack.prisma.model.findUnique({ where: { slug } })).toBeNull();
    expect(await stack.prisma.provider.findUnique({ where: { id: provider } })).toBeNull();
    expect(await stack.prisma.cogServer.count({ where: { providerId: provider } })).toBe(0);

    expect((await importCog(slug)).status).toBe(201);
    expect((await auditOf(slug)).map((e) => e.action)).toEqual(['model.import-cog']);
  });

  it('writes a version-status change and its entry in one transaction', async () => {
    const slug = `audit${unique()}/atomic-status/text-to-image`;
    expect((await importCog(slug)).status).toBe(201);
    const allow = await refuseAuditOf(slug);
    try {
      expect((await post(admin('/catalog/version-status'), adminKey, { model: slug, versionId: 'v1', status: 'disabled' })).status).toBe(500);
    } finally {
      await allow();
    }
    const model = await stack.prisma.model.findUniqueOrThrow({ where: { slug }, include: { versions: true } });
    expect(model.versions.map((v) => v.status)).toEqual(['active']);
  });

  it("keeps the server's own request id, with the client's X-Request-Id beside it", async () => {
    const created = await post(admin('/accounts'), adminKey, { name: 'request ids' });
    const accountId = created.body.accountId as string;
    const clientId = `client-${unique()}`;
    const patched = await request(admin(`/accounts/${accountId}`), {
      method: 'PATCH',
      headers: bearer(adminKey, { 'x-request-id': clientId }),
      body: JSON.stringify({ name: 'request ids, renamed' }),
    });
    expect(patched.status).toBe(200);
    // The answer still echoes the client's id, as documented.
    expect(patched.headers.get('x-request-id')).toBe(clientId);

    const [update, create] = await auditOf(accountId);
    expect(update.action).toBe('account.update');
    expect(update.requestId).toMatch(/^req_[A-Za-z0-9]{20}$/);
    expect(update.clientRequestId).toBe(clientId);
    // Without an X-Request-Id, the id the answer carried is the server's, and there is no client id.
    expect(create.requestId).toBe(created.headers.get('x-request-id'));
    expect(create.clientRequestId).toBeNull();

    // A client cannot make its entries share an id: the same X-Request-Id twice gives two server ids.
    await request(admin(`/accounts/${accountId}`), { method: 'PATCH', headers: bearer(adminKey, { 'x-request-id': clientId }), body: JSON.stringify({ name: 'again' }) });
    const [again] = await auditOf(accountId);
    expect(again.clientRequestId).toBe(clientId);
    expect(again.requestId).not.toBe(update.requestId);
  });
});
