/** The operator API under /v1/admin, for keys with the `admin` scope. Routes only translate HTTP. */
import { Router } from 'express';
import { actorOf, requireApiKey } from '../auth';
import type { ApiDeps } from '../deps';
import { bearerAuth, errorResponse, errorResponses, registry } from '../openapi';
import type { BodyReaders } from '../middleware/requestBodies';
import { parseWith } from '../validate';
import { LedgerPageSchema, ListLedgerQuerySchema } from '../../contracts/http/account';
import {
  AccountErasureSchema,
  AccountIdParamsSchema,
  AccountPageSchema,
  AdminJobSchema,
  CogImportSchema,
  ImportCogRequestSchema,
  JobIdParamsSchema,
  MarginsQuerySchema,
  MarginsSchema,
  VersionStatusChangeSchema,
  VersionStatusRequestSchema,
  WebhookSecretRotationSchema,
  AdminAccountSchema,
  CreatedAccountSchema,
  AdminKeySchema,
  AuditPageSchema,
  AuditQuerySchema,
  CreateAccountRequestSchema,
  CreateKeyRequestSchema,
  CreditGrantSchema,
  GrantCreditsRequestSchema,
  IssuedKeySchema,
  KeyIdParamsSchema,
  KeyListSchema,
  ListAccountsQuerySchema,
  RotatedKeySchema,
  RotateKeyRequestSchema,
  UpdateAccountRequestSchema,
  UsageQuerySchema,
  UsageReportSchema,
} from '../../contracts/http/admin';
import { z } from '../../contracts/http/zod';
import type { AdminService } from '../../admin/service';
import { usageCsv } from '../../admin/usage';

const security = [{ [bearerAuth.name]: [] }];
const tags = ['Admin'];
const SCOPE_NOTE = ' Scope: `admin`.';
const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
const body = (schema: z.ZodType) => ({ body: { required: true, content: json(schema) } });

registry.registerPath({
  method: 'post', path: '/v1/admin/accounts', operationId: 'adminCreateAccount', tags, security,
  summary: 'Create an account',
  description: 'A new tenant with no credits (grant them with the credits route). Audited.' + SCOPE_NOTE,
  request: body(CreateAccountRequestSchema),
  responses: { 201: { description: 'The account, with its webhook secret shown this once', content: json(CreatedAccountSchema) }, ...errorResponses(401, 403, 413) },
});
registry.registerPath({
  method: 'get', path: '/v1/admin/accounts', operationId: 'adminListAccounts', tags, security,
  summary: 'List accounts',
  description: 'Newest first, optionally only those whose name contains `search` (any case). Follow `nextCursor` while `hasMore`.' + SCOPE_NOTE,
  request: { query: ListAccountsQuerySchema },
  responses: { 200: { description: 'One page of accounts', content: json(AccountPageSchema) }, ...errorResponses(401, 403) },
});
registry.registerPath({
  method: 'get', path: '/v1/admin/accounts/{accountId}', operationId: 'adminGetAccount', tags, security,
  summary: 'Get an account',
  description: 'Balance, plan, limits and what is left of them, jobs in flight, suspension.' + SCOPE_NOTE,
  request: { params: AccountIdParamsSchema },
  responses: { 200: { description: 'The account', content: json(AdminAccountSchema) }, ...errorResponses(401, 403, 404) },
});
registry.registerPath({
  method: 'patch', path: '/v1/admin/accounts/{accountId}', operationId: 'adminUpdateAccount', tags, security,
  summary: 'Change an account',
  description: 'Any of name, plan, concurrent jobs, segments, private models, discount, spend limits (null removes one) and suspension. Audited with the account before and after.' + SCOPE_NOTE,
  request: { params: AccountIdParamsSchema, ...body(UpdateAccountRequestSchema) },
  responses: { 200: { description: 'The account as changed', content: json(AdminAccountSchema) }, ...errorResponses(401, 403, 404, 413) },
});
registry.registerPath({
  method: 'post', path: '/v1/admin/accounts/{accountId}/erase', operationId: 'adminEraseAccount', tags, security,
  summary: 'Erase an account',
  description:
    "Erases the content of every job of the account as `DELETE /v1/jobs/{jobId}` does (outputs deleted with reason `operator`), revokes its keys and suspends it for good; " +
    'the ledger is kept. Runs as durable work that resumes after a crash: the answer is its progress, to follow with the GET of `/erasure`. ' +
    'Audited once (`account.erase`); a repeated request changes nothing and answers the progress.' + SCOPE_NOTE,
  request: { params: AccountIdParamsSchema },
  responses: { 202: { description: 'The erasure, under way or complete', content: json(AccountErasureSchema) }, ...errorResponses(401, 403, 404, 503) },
});
registry.registerPath({
  method: 'get', path: '/v1/admin/accounts/{accountId}/erasure', operationId: 'adminGetAccountErasure', tags, security,
  summary: "An account's erasure progress",
  description: 'Jobs erased and left, keys still active, and whether it is complete. 404 ERASURE_NOT_FOUND when none was requested.' + SCOPE_NOTE,
  request: { params: AccountIdParamsSchema },
  responses: { 200: { description: 'The erasure', content: json(AccountErasureSchema) }, ...errorResponses(401, 403, 404) },
});
registry.registerPath({
  method: 'get', path: '/v1/admin/accounts/{accountId}/ledger', operationId: 'adminListAccountLedger', tags, security,
  summary: "An account's ledger",
  description: 'Every change of the balance, newest first, as the account sees it in GET /v1/account/ledger.' + SCOPE_NOTE,
  request: { params: AccountIdParamsSchema, query: ListLedgerQuerySchema },
  responses: { 200: { description: 'One page of ledger entries', content: json(LedgerPageSchema) }, ...errorResponses(401, 403, 404) },
});
registry.registerPath({
  method: 'post', path: '/v1/admin/accounts/{accountId}/keys', operationId: 'adminCreateKey', tags, security,
  summary: 'Issue a key',
  description: 'Scopes, allowed models, expiry and spend limits. The secret is in this answer only. Audited.' + SCOPE_NOTE,
  request: { params: AccountIdParamsSchema, ...body(CreateKeyRequestSchema) },
  responses: { 201: { description: 'The key and its secret', content: json(IssuedKeySchema) }, ...errorResponses(401, 403, 404, 413) },
});
registry.registerPath({
  method: 'get', path: '/v1/admin/accounts/{accountId}/keys', operationId: 'adminListKeys', tags, security,
  summary: "An account's keys",
  description: 'Every key, revoked and expired ones included, oldest first; never a secret.' + SCOPE_NOTE,
  request: { params: AccountIdParamsSchema },
  responses: { 200: { description: 'The keys', content: json(KeyListSchema) }, ...errorResponses(401, 403, 404) },
});
registry.registerPath({
  method: 'delete', path: '/v1/admin/keys/{keyId}', operationId: 'adminRevokeKey', tags, security,
  summary: 'Revoke a key',
  description: 'Requests with the key are refused within 2 seconds. Revoking a revoked key changes nothing. Audited.' + SCOPE_NOTE,
  request: { params: KeyIdParamsSchema },
  responses: { 200: { description: 'The revoked key', content: json(AdminKeySchema) }, ...errorResponses(401, 403, 404) },
});
registry.registerPath({
  method: 'post', path: '/v1/admin/keys/{keyId}/rotate', operationId: 'adminRotateKey', tags, security,
  summary: 'Rotate a key',
  description:
    'Issues a key with the same account, scopes, models, expiry and limits, and lets the old one work for `overlapSeconds` ' +
    'more. The new key spends the same budget as the old one: what either spends counts against the limits of both, during ' +
    'the overlap and after it. A revoked or expired key answers 409 KEY_REVOKED. Audited.' + SCOPE_NOTE,
  request: { params: KeyIdParamsSchema, body: { required: false, content: json(RotateKeyRequestSchema) } },
  responses: { 201: { description: 'The new key, its secret, and the old key', content: json(RotatedKeySchema) }, ...errorResponses(401, 403, 404, 409, 413) },
});
registry.registerPath({
  method: 'post', path: '/v1/admin/accounts/{accountId}/credits', operationId: 'adminGrantCredits', tags, security,
  summary: 'Grant or take back credits',
  description:
    'A signed amount with a reason and your external reference, written as one ledger entry. Send an `Idempotency-Key` ' +
    '(for example the payment id): the same key and body credit once and answer the same again (`Idempotent-Replayed: true`); ' +
    'the key with another body answers 409 IDEMPOTENCY_KEY_REUSED. Taking back more than the balance answers 402. Audited.' + SCOPE_NOTE,
  request: { params: AccountIdParamsSchema, headers: z.object({ 'Idempotency-Key': z.string().optional() }), ...body(GrantCreditsRequestSchema) },
  responses: {
    201: {
      description: 'The ledger entry and the balance after it',
      headers: { 'Idempotent-Replayed': { description: '`true` when this is the stored answer of an earlier request with the same key', schema: { type: 'string', enum: ['true'] } } },
      content: json(CreditGrantSchema),
    },
    ...errorResponses(401, 403, 404, 409, 413),
    402: errorResponse(402, 'A negative amount larger than the balance (INSUFFICIENT_BALANCE)'),
  },
});
registry.registerPath({
  method: 'get', path: '/v1/admin/usage', operationId: 'adminUsage', tags, security,
  summary: 'Usage report',
  description:
    'Micro-cents charged and refunded and the jobs behind them, from the ledger, over `[from, to)` (at most 366 days), ' +
    'grouped by any of `day`, `account`, `key`, `model`, `provider`. `format=csv` answers text/csv with one header row.' + SCOPE_NOTE,
  request: { query: UsageQuerySchema },
  responses: {
    200: { description: 'The report', content: { ...json(UsageReportSchema), 'text/csv': { schema: z.string() } } },
    ...errorResponses(401, 403),
  },
});
registry.registerPath({
  method: 'get', path: '/v1/admin/audit', operationId: 'adminListAudit', tags, security,
  summary: 'Audit log',
  description:
    'Every change made through the admin API (who, what, when, the target before and after, the request id the server gave the ' +
    "request and the client's `X-Request-Id`), newest first; `targetId` keeps one account, key or model." + SCOPE_NOTE,
  request: { query: AuditQuerySchema },
  responses: { 200: { description: 'One page of audit entries', content: json(AuditPageSchema) }, ...errorResponses(401, 403) },
});

registry.registerPath({
  method: 'post', path: '/v1/admin/accounts/{accountId}/webhook-secret/rotate', operationId: 'adminRotateWebhookSecret', tags, security,
  summary: "Rotate an account's webhook secret",
  description: 'A new signing secret, shown this once; the previous one keeps signing beside it during the rotation window, so receivers switch without losing an event. Audited (without the secret).' + SCOPE_NOTE,
  request: { params: AccountIdParamsSchema },
  responses: { 201: { description: 'The new secret', content: json(WebhookSecretRotationSchema) }, ...errorResponses(401, 403, 404) },
});
registry.registerPath({
  method: 'get', path: '/v1/admin/jobs/{jobId}', operationId: 'adminGetJob', tags, security,
  summary: 'Any job, in full',
  description: "One job of any account with its upstream generation, what it cost us, its ledger rows and the link to its workflow in the Temporal UI." + SCOPE_NOTE,
  request: { params: JobIdParamsSchema },
  responses: { 200: { description: 'The job', content: json(AdminJobSchema) }, ...errorResponses(401, 403, 404) },
});
registry.registerPath({
  method: 'get', path: '/v1/admin/margins', operationId: 'adminMargins', tags, security,
  summary: 'Margins per provider',
  description: 'Per provider: revenue (charges less refunds), what the upstreams reported they cost, and the margin.' + SCOPE_NOTE,
  request: { query: MarginsQuerySchema },
  responses: { 200: { description: 'Margins', content: json(MarginsSchema) }, ...errorResponses(401, 403) },
});
registry.registerPath({
  method: 'post', path: '/v1/admin/catalog/version-status', operationId: 'adminSetVersionStatus', tags, security,
  summary: "Set a model version's status",
  description: 'active, deprecated, disabled or deleted (permanent); takes effect at once. The next catalog seed applies the catalog files again. Audited.' + SCOPE_NOTE,
  request: body(VersionStatusRequestSchema),
  responses: { 200: { description: 'The change', content: json(VersionStatusChangeSchema) }, ...errorResponses(401, 403, 413) },
});

registry.registerPath({
  method: 'post', path: '/v1/admin/models/import-cog', operationId: 'adminImportCogModel', tags, security,
  summary: 'Register a model from a Cog server',
  description:
    "Reads the server's input schema from its /openapi.json (or `schema`), creates the catalog model and version (fields passed " +
    'through under their own names, the price per generation), creates the provider with the cog adapter when missing and adds ' +
    'the server with its slots to its pool. The server must be on a network COG_ALLOWED_NETWORKS allows and `url` be its base URL ' +
    '(no query, fragment or credentials); the schema is read without following a redirect, within 1 MiB and 10 s, and a failure ' +
    'says why without repeating what the server sent. File inputs (format uri) stay files. Audited. See docs/self-hosted.md.' + SCOPE_NOTE,
  request: body(ImportCogRequestSchema),
  responses: { 201: { description: 'The model as registered', content: json(CogImportSchema) }, ...errorResponses(401, 403, 413) },
});

/** Admin bodies are small: a name, lists of slugs and segments. */
const ADMIN_BODY_LIMIT = 64 * 1024;
/** An import may carry a server's whole OpenAPI document. */
const COG_IMPORT_BODY_LIMIT = 1024 * 1024;

export function adminRouter(deps: ApiDeps, admin: AdminService, bodies: BodyReaders): Router {
  const router = Router();
  const auth = requireApiKey(deps.keys, { credential: 'bearer', scope: 'admin' });
  const read = bodies.json(ADMIN_BODY_LIMIT);
  const accountIdOf = (params: unknown) => parseWith(AccountIdParamsSchema, params, 'VALIDATION_ERROR', 'path').accountId;
  const keyIdOf = (params: unknown) => parseWith(KeyIdParamsSchema, params, 'VALIDATION_ERROR', 'path').keyId;

  router.post('/v1/admin/accounts', auth, ...read, async (req, res) => {
    res.status(201).json(await admin.accounts.create(actorOf(res), parseWith(CreateAccountRequestSchema, req.body ?? {})));
  });
  router.get('/v1/admin/accounts', auth, async (req, res) => {
    res.json(await admin.accounts.list(parseWith(ListAccountsQuerySchema, req.query, 'VALIDATION_ERROR', 'query')));
  });
  router.get('/v1/admin/accounts/:accountId', auth, async (req, res) => {
    res.json(await admin.accounts.get(accountIdOf(req.params)));
  });
  router.patch('/v1/admin/accounts/:accountId', auth, ...read, async (req, res) => {
    const change = parseWith(UpdateAccountRequestSchema, req.body ?? {});
    res.json(await admin.accounts.update(actorOf(res), accountIdOf(req.params), change));
  });
  router.post('/v1/admin/accounts/:accountId/erase', auth, async (req, res) => {
    res.status(202).json(await admin.eraseAccount(actorOf(res), accountIdOf(req.params)));
  });
  router.get('/v1/admin/accounts/:accountId/erasure', auth, async (req, res) => {
    res.json(await admin.accountErasure(accountIdOf(req.params)));
  });
  router.get('/v1/admin/accounts/:accountId/ledger', auth, async (req, res) => {
    const query = parseWith(ListLedgerQuerySchema, req.query, 'VALIDATION_ERROR', 'query');
    res.json(await admin.ledger(accountIdOf(req.params), query));
  });
  router.post('/v1/admin/accounts/:accountId/keys', auth, ...read, async (req, res) => {
    const request = parseWith(CreateKeyRequestSchema, req.body ?? {});
    res.status(201).json(await admin.keys.create(actorOf(res), accountIdOf(req.params), request));
  });
  router.get('/v1/admin/accounts/:accountId/keys', auth, async (req, res) => {
    res.json(await admin.keys.list(accountIdOf(req.params)));
  });
  router.delete('/v1/admin/keys/:keyId', auth, async (req, res) => {
    res.json(await admin.keys.revoke(actorOf(res), keyIdOf(req.params)));
  });
  router.post('/v1/admin/keys/:keyId/rotate', auth, ...read, async (req, res) => {
    const { overlapSeconds } = parseWith(RotateKeyRequestSchema, req.body ?? {});
    res.status(201).json(await admin.keys.rotate(actorOf(res), keyIdOf(req.params), overlapSeconds));
  });
  router.post('/v1/admin/accounts/:accountId/credits', auth, ...read, async (req, res) => {
    const request = parseWith(GrantCreditsRequestSchema, req.body ?? {});
    const { grant, replayed } = await admin.credits.grant(actorOf(res), accountIdOf(req.params), request, req.get('idempotency-key'));
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(201).json(grant);
  });
  router.get('/v1/admin/usage', auth, async (req, res) => {
    const query = parseWith(UsageQuerySchema, req.query, 'VALIDATION_ERROR', 'query');
    const report = await admin.usage(query);
    if (query.format === 'csv') {
      res.type('text/csv').setHeader('Content-Disposition', 'attachment; filename="usage.csv"');
      res.send(usageCsv(report));
      return;
    }
    res.json(report);
  });
  router.post('/v1/admin/accounts/:accountId/webhook-secret/rotate', auth, async (req, res) => {
    res.status(201).json(await admin.rotateWebhookSecret(actorOf(res), accountIdOf(req.params)));
  });
  router.get('/v1/admin/jobs/:jobId', auth, async (req, res) => {
    res.json(await admin.job(parseWith(JobIdParamsSchema, req.params, 'VALIDATION_ERROR', 'path').jobId));
  });
  router.get('/v1/admin/margins', auth, async (req, res) => {
    res.json(await admin.margins(parseWith(MarginsQuerySchema, req.query, 'VALIDATION_ERROR', 'query').since));
  });
  router.post('/v1/admin/models/import-cog', auth, ...bodies.json(COG_IMPORT_BODY_LIMIT), async (req, res) => {
    res.status(201).json(await admin.importCog(actorOf(res), parseWith(ImportCogRequestSchema, req.body ?? {})));
  });
  router.post('/v1/admin/catalog/version-status', auth, ...read, async (req, res) => {
    const { model, versionId, status } = parseWith(VersionStatusRequestSchema, req.body ?? {});
    res.json(await admin.setVersionStatus(actorOf(res), model, versionId, status));
  });
  router.get('/v1/admin/audit', auth, async (req, res) => {
    res.json(await admin.audit(parseWith(AuditQuerySchema, req.query, 'VALIDATION_ERROR', 'query')));
  });

  return router;
}
