import type { Request, RequestHandler, Response } from 'express';
import type { Account, ApiKey } from '@prisma/client';
import type { Actor } from '../audit/log';
import type { PrismaClient } from '../db/prisma';
import { hashApiKey } from '../accounts/apiKeys';
import type { Scope } from '../shared/scopes';
import { ApiError } from './apiError';
import { createExpiringCache } from '../lib/expiringCache';
import { createKeyStanding, type KeyHolder } from './keyStanding';

export type Credential = 'bearer' | 'x-api-key';

export interface AuthContext {
  account: Account;
  apiKey: ApiKey;
}

const CREDENTIAL_HINT: Record<Credential, string> = {
  bearer: 'Authorization: Bearer <API_KEY>',
  'x-api-key': 'x-api-key: <API_KEY>',
};

function bearerToken(req: Request): string | undefined {
  const header = req.get('authorization');
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiError('UNAUTHORIZED', 'Malformed Authorization header; expected "Bearer <API_KEY>"');
  return match[1];
}

function presentedKey(req: Request, credential: Credential): string | undefined {
  if (credential === 'bearer') return bearerToken(req);
  const value = req.get('x-api-key');
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export interface KeyAuthenticator {
  /** The key's row and account; UNAUTHORIZED for an unknown or revoked key. */
  authenticate(key: string): Promise<AuthContext>;
  /**
   * For what stands on a key without presenting it (a job's signed events URL): resolves while the key with this id
   * and its account may still be used, and refuses as `authenticate` would refuse the key. Cached for the same TTL.
   */
  checkStanding(holder: KeyHolder): Promise<void>;
}

const MAX_CACHED_KEYS = 10_000;

/**
 * Looks keys up in PostgreSQL at most once per `ttlMs` each, so the hot path costs no database round trip. The
 * price: a revoked key, or a change to a key or its account (scopes, discount, segments), takes effect within
 * `ttlMs`. Unknown and revoked keys are never cached. 0 turns the cache off.
 *
 * The cache is keyed by the key as presented, so a hit costs no hash (SHA-256 through OpenSSL took 8–15 µs of each
 * request). The database still holds only hashes; a key stays in this process's memory no longer than its TTL, as
 * spent entries are dropped on the next lookup.
 */
export function createKeyAuthenticator(prisma: PrismaClient, options: { ttlMs: number; clock?: () => number }): KeyAuthenticator {
  const clock = options.clock ?? Date.now;
  const cache = createExpiringCache<AuthContext>({ ttlMs: options.ttlMs, maxEntries: MAX_CACHED_KEYS });
  const standing = createKeyStanding(prisma, options);
  return {
    checkStanding: (holder) => standing.check(holder),
    async authenticate(key) {
      const now = clock();
      const hit = cache.get(key, now);
      if (hit) return usable(hit, now);
      const hash = hashApiKey(key);
      const apiKey = await prisma.apiKey.findUnique({ where: { hash }, include: { account: true } });
      if (!apiKey) throw new ApiError('UNAUTHORIZED', 'Unknown API key');
      if (apiKey.revokedAt) throw new ApiError('UNAUTHORIZED', 'This API key has been revoked');
      const { account, ...keyRow } = apiKey;
      const auth = usable({ account, apiKey: keyRow }, now);
      cache.set(key, auth, clock());
      return auth;
    },
  };
}

/** Refuses a key past its expiry (checked on every use: a rotated key's overlap ends on time) or of a suspended account. */
function usable(auth: AuthContext, now: number): AuthContext {
  const { expiresAt } = auth.apiKey;
  if (expiresAt && expiresAt.getTime() <= now) {
    throw new ApiError('UNAUTHORIZED', `This API key expired at ${expiresAt.toISOString()}`);
  }
  if (auth.account.suspendedAt) {
    throw new ApiError('ACCOUNT_SUSPENDED', 'This account is suspended; its keys are refused until an operator lifts the suspension');
  }
  return auth;
}

/** Requires a valid, unrevoked key in the endpoint's documented header, carrying `scope`. */
export function requireApiKey(keys: KeyAuthenticator, options: { credential: Credential; scope: Scope }): RequestHandler {
  return async (req, res, next) => {
    const key = presentedKey(req, options.credential);
    if (key === undefined) {
      throw new ApiError('UNAUTHORIZED', `Missing API key; send it as "${CREDENTIAL_HINT[options.credential]}"`);
    }
    const auth = await keys.authenticate(key);
    if (!auth.apiKey.scopes.includes(options.scope)) {
      throw new ApiError('INSUFFICIENT_SCOPE', `This API key lacks the "${options.scope}" scope`, {
        requiredScope: options.scope,
        keyScopes: auth.apiKey.scopes,
      });
    }
    res.locals.auth = auth;
    next();
  };
}

/** Public endpoints with an optional Bearer key: no header → anonymous; a bad key is still a 401. */
export function optionalBearer(keys: KeyAuthenticator): RequestHandler {
  return async (req, res, next) => {
    const key = bearerToken(req);
    res.locals.auth = key === undefined ? undefined : await keys.authenticate(key);
    next();
  };
}

export function getAuth(res: Response): AuthContext {
  const auth = res.locals.auth as AuthContext | undefined;
  if (!auth) throw new Error('getAuth() used on a route without requireApiKey()');
  return auth;
}

/** The key of the request, and the request's ids (the server's own, and the client's `X-Request-Id` if any), for the audit log. */
export function actorOf(res: Response): Actor {
  const { apiKey } = getAuth(res);
  const clientRequestId = res.locals.clientRequestId as string | undefined;
  return { keyId: apiKey.id, accountId: apiKey.accountId, requestId: String(res.locals.serverRequestId), clientRequestId: clientRequestId ?? null };
}

export function getOptionalAuth(res: Response): AuthContext | undefined {
  return res.locals.auth as AuthContext | undefined;
}
