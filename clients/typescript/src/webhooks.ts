import { Webhook } from 'standardwebhooks';
import { GenmediaError } from './errors';
import type { WebhookPayload } from './types';

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a webhook delivery's Standard Webhooks signature and timestamp (five minutes' tolerance) against the
 * account's `whsec_` secret, and returns the parsed payload. Pass the body exactly as received, before any JSON
 * parsing. During a secret rotation pass both secrets: the delivery is accepted if either signed it.
 * Throws a GenmediaError with code `WEBHOOK_VERIFICATION_FAILED` otherwise.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string | readonly string[]): WebhookPayload {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const signed = {
    'webhook-id': header(headers, 'webhook-id'),
    'webhook-timestamp': header(headers, 'webhook-timestamp'),
    'webhook-signature': header(headers, 'webhook-signature'),
  };
  let lastError: unknown;
  for (const candidate of typeof secret === 'string' ? [secret] : secret) {
    try {
      return new Webhook(candidate).verify(body, signed) as WebhookPayload;
    } catch (err) {
      lastError = err;
    }
  }
  throw new GenmediaError(`webhook verification failed: ${lastError instanceof Error ? lastError.message : 'no secret given'}`, {
    code: 'WEBHOOK_VERIFICATION_FAILED',
    cause: lastError,
  });
}

function header(headers: WebhookHeaders, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
  return (Array.isArray(value) ? value[0] : value) ?? '';
}
