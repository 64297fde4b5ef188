import { createHash } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com):
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the
 * base64 bytes after the `whsec_` prefix of the account's secret (src/accounts/webhookSecret.ts makes them).
 */

export interface SignedWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The webhook-related columns of an account. */
export interface AccountWebhookSecrets {
  webhookSecret: string;
  webhookSecretPrevious?: string | null;
  webhookSecretRotatedAt?: Date | null;
}

/**
 * The `webhook-id` of an event: derived from the job and event type, so every attempt and every
 * redelivery of that event carries the same id and receivers can deduplicate on it.
 */
export function webhookEventId(jobId: string, eventType: string): string {
  const digest = createHash('sha256').update(`${jobId}\n${eventType}`).digest('hex');
  return `msg_${digest.slice(0, 32)}`;
}

/**
 * The secrets to sign with at `now`: the current one, plus the previous one while the rotation
 * window since `webhookSecretRotatedAt` is open. The current secret comes first.
 */
export function activeSigningSecrets(
  account: AccountWebhookSecrets,
  now: Date,
  rotationWindowSeconds: number,
): string[] {
  const secrets = [account.webhookSecret];
  const previous = account.webhookSecretPrevious;
  const rotatedAt = account.webhookSecretRotatedAt;
  if (previous && previous !== account.webhookSecret && rotatedAt) {
    const windowEndsAt = rotatedAt.getTime() + rotationWindowSeconds * 1000;
    if (now.getTime() < windowEndsAt) secrets.push(previous);
  }
  return secrets;
}

/**
 * Signs `body` for one delivery attempt. With several secrets the signatures are joined by a
 * space, as the specification allows, so receivers holding either secret can verify.
 */
export function signWebhook(params: {
  webhookId: string;
  timestamp: Date;
  body: string;
  secrets: readonly string[];
}): SignedWebhookHeaders {
  const { webhookId, timestamp, body, secrets } = params;
  if (secrets.length === 0) throw new Error('signWebhook needs at least one secret');
  const signatures = secrets.map((secret) => new Webhook(secret).sign(webhookId, timestamp, body));
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
