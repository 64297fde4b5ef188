/**
 * The account's webhook signing secret, as the account makes and rotates it: `whsec_` and the base64 of random bytes,
 * the form Standard Webhooks keys with (src/webhooks/signing.ts signs with it).
 */
import { randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 24;

/** A new signing secret: `whsec_` followed by the base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** True when `secret` is a `whsec_` secret whose key decodes to at least 16 bytes. */
export function isWebhookSecret(secret: string): boolean {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return false;
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  return Buffer.from(encoded, 'base64').length >= 16;
}
