import { createHash } from 'node:crypto';
import { randomBase62 } from '../lib/ids';

/** What a tenant's keys may do. */
export const CLIENT_SCOPES = ['submit_job', 'check_status', 'list_models', 'upload'] as const;
/** Operating the deployment through /v1/admin: accounts, keys, credits, usage and the audit log. */
export const ADMIN_SCOPE = 'admin';
export const SCOPES = [...CLIENT_SCOPES, ADMIN_SCOPE] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

const KEY_PREFIX = 'gm_';
const PREFIX_SHOWN = KEY_PREFIX.length + 8;

export interface GeneratedKey {
  apiKey: string;
  prefix: string;
  hash: string;
}

/** A new API key; only its hash and its first characters are ever stored. */
export function generateApiKey(): GeneratedKey {
  const apiKey = KEY_PREFIX + randomBase62(40);
  return { apiKey, prefix: apiKey.slice(0, PREFIX_SHOWN), hash: hashApiKey(apiKey) };
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}
