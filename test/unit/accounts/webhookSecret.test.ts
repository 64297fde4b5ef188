import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, isWebhookSecret } from '../../../src/accounts/webhookSecret';

describe('generateWebhookSecret', () => {
  it('is whsec_ followed by the base64 of 24 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    expect(isWebhookSecret(secret)).toBe(true);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('rejects malformed secrets', () => {
    expect(isWebhookSecret('whsec_')).toBe(false);
    expect(isWebhookSecret('secret_abc')).toBe(false);
    expect(isWebhookSecret('whsec_not base64!')).toBe(false);
    expect(isWebhookSecret('whsec_' + Buffer.alloc(8).toString('base64'))).toBe(false);
  });
});
