import type { Client } from 'openapi-fetch';
import type { paths } from './generated/openapi';
import { connect, followCursor, newIdempotencyKey, unwrap, type ConnectionOptions } from './transport';
import type { RequestOptions } from './client';
import type {
  AccountErasure,
  AdminAccount,
  AdminAccountPage,
  AdminJob,
  AdminKey,
  AuditEntry,
  AuditPage,
  CogImport,
  ImportCogRequest,
  CreateAccountRequest,
  CreatedAccount,
  CreateKeyRequest,
  CreditGrant,
  GrantCreditsRequest,
  IssuedKey,
  LedgerEntry,
  LedgerPage,
  Margins,
  RotatedKey,
  UpdateAccountRequest,
  UsageReport,
  VersionStatusChange,
  VersionStatusRequest,
  WebhookSecretRotation,
} from './types';

export interface GenmediaAdminOptions extends ConnectionOptions {
  /** A key with the `admin` scope. Default: the `GENMEDIA_ADMIN_KEY` environment variable. */
  apiKey?: string;
}

type AccountsQuery = NonNullable<paths['/v1/admin/accounts']['get']['parameters']['query']>;
type LedgerQuery = NonNullable<paths['/v1/admin/accounts/{accountId}/ledger']['get']['parameters']['query']>;
type UsageQuery = Omit<NonNullable<paths['/v1/admin/usage']['get']['parameters']['query']>, 'format'>;
type AuditQuery = NonNullable<paths['/v1/admin/audit']['get']['parameters']['query']>;

export interface GrantOptions extends RequestOptions {
  /** Sent as `Idempotency-Key`: use the payment id, so the same payment never credits twice. Default: a new key. */
  idempotencyKey?: string;
}

/**
 * The operator API (/v1/admin) for keys with the `admin` scope: tenants' accounts, keys, credits, usage and the audit
 * log. Every method throws a GenmediaError on an error answer.
 */
export class GenmediaAdmin {
  readonly api: Client<paths>;
  readonly baseUrl: string;

  constructor(options: GenmediaAdminOptions = {}) {
    ({ api: this.api, baseUrl: this.baseUrl } = connect(options, 'GENMEDIA_ADMIN_KEY'));
  }

  /** A new account with no credits; its webhook secret is in this answer only. */
  createAccount(body: CreateAccountRequest, options: RequestOptions = {}): Promise<CreatedAccount> {
    return unwrap(this.api.POST('/v1/admin/accounts', { body, signal: options.signal }));
  }

  listAccounts(query: AccountsQuery = {}, options: RequestOptions = {}): Promise<AdminAccountPage> {
    return unwrap(this.api.GET('/v1/admin/accounts', { params: { query }, signal: options.signal }));
  }

  /** Every account (matching `search`), newest first, fetching pages as the loop asks for them. */
  accounts(query: Omit<AccountsQuery, 'cursor'> = {}, options: RequestOptions = {}): AsyncGenerator<AdminAccount> {
    return followCursor((cursor) => this.listAccounts({ ...query, cursor }, options), (page) => page.accounts);
  }

  getAccount(accountId: string, options: RequestOptions = {}): Promise<AdminAccount> {
    return unwrap(this.api.GET('/v1/admin/accounts/{accountId}', { params: { path: { accountId } }, signal: options.signal }));
  }

  updateAccount(accountId: string, body: UpdateAccountRequest, options: RequestOptions = {}): Promise<AdminAccount> {
    return unwrap(this.api.PATCH('/v1/admin/accounts/{accountId}', { params: { path: { accountId } }, body, signal: options.signal }));
  }

  /**
   * Erases every job of the account, revokes its keys and suspends it, as durable work; resolves with its progress at
   * once (follow it with accountErasure). Audited once; repeating it changes nothing.
   */
  eraseAccount(accountId: string, options: RequestOptions = {}): Promise<AccountErasure> {
    return unwrap(this.api.POST('/v1/admin/accounts/{accountId}/erase', { params: { path: { accountId } }, signal: options.signal }));
  }

  /** The progress of the account's erasure (ERASURE_NOT_FOUND when none was asked for). */
  accountErasure(accountId: string, options: RequestOptions = {}): Promise<AccountErasure> {
    return unwrap(this.api.GET('/v1/admin/accounts/{accountId}/erasure', { params: { path: { accountId } }, signal: options.signal }));
  }

  listLedger(accountId: string, query: LedgerQuery = {}, options: RequestOptions = {}): Promise<LedgerPage> {
    return unwrap(this.api.GET('/v1/admin/accounts/{accountId}/ledger', { params: { path: { accountId }, query }, signal: options.signal }));
  }

  ledger(accountId: string, query: Omit<LedgerQuery, 'cursor'> = {}, options: RequestOptions = {}): AsyncGenerator<LedgerEntry> {
    return followCursor((cursor) => this.listLedger(accountId, { ...query, cursor }, options), (page) => page.entries);
  }

  /** Issues a key; its secret (`apiKey`) is in this answer only. */
  createKey(accountId: string, body: CreateKeyRequest, options: RequestOptions = {}): Promise<IssuedKey> {
    return unwrap(this.api.POST('/v1/admin/accounts/{accountId}/keys', { params: { path: { accountId } }, body, signal: options.signal }));
  }

  listKeys(accountId: string, options: RequestOptions = {}): Promise<AdminKey[]> {
    return unwrap(this.api.GET('/v1/admin/accounts/{accountId}/keys', { params: { path: { accountId } }, signal: options.signal })).then((r) => r.keys);
  }

  revokeKey(keyId: string, options: RequestOptions = {}): Promise<AdminKey> {
    return unwrap(this.api.DELETE('/v1/admin/keys/{keyId}', { params: { path: { keyId } }, signal: options.signal }));
  }

  /** A replacement key; the old one keeps working for `overlapSeconds` (default 3600). */
  rotateKey(keyId: string, overlapSeconds?: number, options: RequestOptions = {}): Promise<RotatedKey> {
    return unwrap(this.api.POST('/v1/admin/keys/{keyId}/rotate', { params: { path: { keyId } }, body: (overlapSeconds === undefined ? {} : { overlapSeconds }) as { overlapSeconds: number }, signal: options.signal }));
  }

  /** Adds (or, negative, takes back) credits; the same idempotency key and body credit once. */
  grantCredits(accountId: string, body: GrantCreditsRequest, options: GrantOptions = {}): Promise<CreditGrant> {
    const header = { 'Idempotency-Key': options.idempotencyKey ?? newIdempotencyKey() };
    return unwrap(this.api.POST('/v1/admin/accounts/{accountId}/credits', { params: { path: { accountId }, header }, body, signal: options.signal }));
  }

  rotateWebhookSecret(accountId: string, options: RequestOptions = {}): Promise<WebhookSecretRotation> {
    return unwrap(this.api.POST('/v1/admin/accounts/{accountId}/webhook-secret/rotate', { params: { path: { accountId } }, signal: options.signal }));
  }

  usage(query: UsageQuery = {}, options: RequestOptions = {}): Promise<UsageReport> {
    return unwrap(this.api.GET('/v1/admin/usage', { params: { query: { ...query, format: 'json' } }, signal: options.signal })) as Promise<UsageReport>;
  }

  /** The usage report as CSV text (one header row). */
  async usageCsv(query: UsageQuery = {}, options: RequestOptions = {}): Promise<string> {
    return unwrap(this.api.GET('/v1/admin/usage', { params: { query: { ...query, format: 'csv' } }, parseAs: 'text', signal: options.signal }));
  }

  listAudit(query: AuditQuery = {}, options: RequestOptions = {}): Promise<AuditPage> {
    return unwrap(this.api.GET('/v1/admin/audit', { params: { query }, signal: options.signal }));
  }

  audit(query: Omit<AuditQuery, 'cursor'> = {}, options: RequestOptions = {}): AsyncGenerator<AuditEntry> {
    return followCursor((cursor) => this.listAudit({ ...query, cursor }, options), (page) => page.entries);
  }

  getJob(jobId: string, options: RequestOptions = {}): Promise<AdminJob> {
    return unwrap(this.api.GET('/v1/admin/jobs/{jobId}', { params: { path: { jobId } }, signal: options.signal }));
  }

  margins(since?: string, options: RequestOptions = {}): Promise<Margins> {
    return unwrap(this.api.GET('/v1/admin/margins', { params: { query: { since } }, signal: options.signal }));
  }

  /** Registers the model a Cog server serves (from its /openapi.json, or `schema`) and adds the server to its pool. */
  importCogModel(body: ImportCogRequest, options: RequestOptions = {}): Promise<CogImport> {
    return unwrap(this.api.POST('/v1/admin/models/import-cog', { body, signal: options.signal }));
  }

  setVersionStatus(body: VersionStatusRequest, options: RequestOptions = {}): Promise<VersionStatusChange> {
    return unwrap(this.api.POST('/v1/admin/catalog/version-status', { body, signal: options.signal }));
  }
}
