/**
 * The operator API (/v1/admin) through the SDK's typed client: each call unwrapped to its data, or thrown as a
 * GenmediaError carrying the API's code and message, as the SDK's own methods do.
 */
import { GenmediaConnectionError, GenmediaError, type components, type Genmedia, type paths } from '@genmedia/client';

type Schemas = components['schemas'];
export type AdminAccount = Schemas['AdminAccount'];
export type AdminAccountPage = Schemas['AdminAccountPage'];
export type AdminKey = Schemas['AdminKey'];
export type IssuedKey = Schemas['IssuedKey'];
export type RotatedKey = Schemas['RotatedKey'];
export type CreditGrant = Schemas['CreditGrant'];
export type UsageReport = Schemas['UsageReport'];
export type AuditEntry = Schemas['AuditEntry'];
export type AuditPage = Schemas['AuditPage'];
export type SpendLimits = Schemas['SpendLimits'];
export type SpendLimitsInput = Schemas['SpendLimitsInput'];
export type CreateAccountRequest = Schemas['CreateAccountRequest'];
export type UpdateAccountRequest = Schemas['UpdateAccountRequest'];
export type CreateKeyRequest = Schemas['CreateKeyRequest'];
export type GrantCreditsRequest = Schemas['GrantCreditsRequest'];
export type LedgerPage = Schemas['LedgerPage'];

type ListAccountsQuery = NonNullable<paths['/v1/admin/accounts']['get']['parameters']['query']>;
type UsageQuery = NonNullable<paths['/v1/admin/usage']['get']['parameters']['query']>;
type AuditQuery = NonNullable<paths['/v1/admin/audit']['get']['parameters']['query']>;

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (err) {
    if (err instanceof Error && err.name === 'AbortError') throw err;
    throw new GenmediaConnectionError(err);
  }
  if (answer.error !== undefined || !answer.response.ok) throw apiError(answer.response, answer.error);
  return answer.data as T;
}

function apiError(response: Response, body: unknown): GenmediaError {
  const parsed = (typeof body === 'object' && body !== null ? body : {}) as { error?: { code?: unknown; message?: unknown; details?: unknown }; requestId?: unknown };
  return new GenmediaError(typeof parsed.error?.message === 'string' ? parsed.error.message : `${response.status} ${response.statusText}`, {
    code: typeof parsed.error?.code === 'string' ? parsed.error.code : `HTTP_${response.status}`,
    status: response.status,
    requestId: typeof parsed.requestId === 'string' ? parsed.requestId : (response.headers.get('x-request-id') ?? undefined),
    details: parsed.error?.details,
  });
}

const on = (signal?: AbortSignal) => (signal ? { signal } : {});

/** The operator calls the console makes, on the signed-in key's client. */
export function adminApi(client: Genmedia) {
  const { api } = client;
  return {
    listAccounts: (query: ListAccountsQuery, signal?: AbortSignal) => unwrap(api.GET('/v1/admin/accounts', { params: { query }, ...on(signal) })),
    createAccount: (body: CreateAccountRequest) => unwrap(api.POST('/v1/admin/accounts', { body })),
    getAccount: (accountId: string, signal?: AbortSignal) =>
      unwrap(api.GET('/v1/admin/accounts/{accountId}', { params: { path: { accountId } }, ...on(signal) })),
    updateAccount: (accountId: string, body: UpdateAccountRequest) =>
      unwrap(api.PATCH('/v1/admin/accounts/{accountId}', { params: { path: { accountId } }, body })),
    listLedger: (accountId: string, cursor: string | undefined, signal?: AbortSignal) =>
      unwrap(api.GET('/v1/admin/accounts/{accountId}/ledger', { params: { path: { accountId }, query: { limit: 25, cursor } }, ...on(signal) })),
    listKeys: (accountId: string, signal?: AbortSignal) =>
      unwrap(api.GET('/v1/admin/accounts/{accountId}/keys', { params: { path: { accountId } }, ...on(signal) })).then((list) => list.keys),
    issueKey: (accountId: string, body: CreateKeyRequest) =>
      unwrap(api.POST('/v1/admin/accounts/{accountId}/keys', { params: { path: { accountId } }, body })),
    revokeKey: (keyId: string) => unwrap(api.DELETE('/v1/admin/keys/{keyId}', { params: { path: { keyId } } })),
    rotateKey: (keyId: string, overlapSeconds: number) =>
      unwrap(api.POST('/v1/admin/keys/{keyId}/rotate', { params: { path: { keyId } }, body: { overlapSeconds } })),
    grantCredits: (accountId: string, body: GrantCreditsRequest, idempotencyKey: string) =>
      unwrap(api.POST('/v1/admin/accounts/{accountId}/credits', { params: { path: { accountId }, header: { 'Idempotency-Key': idempotencyKey } }, body })),
    usage: (query: Omit<UsageQuery, 'format'>, signal?: AbortSignal) =>
      unwrap(api.GET('/v1/admin/usage', { params: { query: { ...query, format: 'json' } }, ...on(signal) })) as Promise<UsageReport>,
    audit: (query: AuditQuery, signal?: AbortSignal) => unwrap(api.GET('/v1/admin/audit', { params: { query }, ...on(signal) })),
  };
}

export type AdminApi = ReturnType<typeof adminApi>;
