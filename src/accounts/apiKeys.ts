import { createHash } from 'node:crypto';
import { randomBase62 } from '../lib/ids';

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
