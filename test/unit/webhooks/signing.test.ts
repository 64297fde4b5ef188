import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../../src/accounts/webhookSecret';
import { activeSigningSecrets, signWebhook, webhookEventId } from '../../../src/webhooks/signing';

const DAY = 24 * 60 * 60;

describe('webhookEventId', () => {
  it('is stable per job and event type and differs otherwise', () => {
    const id = webhookEventId('job_1', 'job.completed');
    expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(webhookEventId('job_1', 'job.completed')).toBe(id);
    expect(webhookEventId('job_1', 'job.failed')).not.toBe(id);
    expect(webhookEventId('job_2', 'job.completed')).not.toBe(id);
  });
});

describe('signWebhook', () => {
  const secret = generateWebhookSecret();
  const timestamp = new Date('2030-01-02T03:04:05.678Z');
  const body = '{"type":"job.completed","data":{"jobId":"job_1"}}';

  it('produces the Standard Webhooks headers and an HMAC-SHA256 over id.timestamp.body', () => {
    const headers = signWebhook({ webhookId: 'msg_abc', timestamp, body, secrets: [secret] });
    const seconds = Math.floor(timestamp.getTime() / 1000);
    expect(headers['webhook-id']).toBe('msg_abc');
    expect(headers['webhook-timestamp']).toBe(String(seconds));
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`msg_abc.${seconds}.${body}`).digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('verifies with the library on the receiving side, and fails with another secret or a changed body', () => {
    const now = new Date();
    const headers = signWebhook({ webhookId: 'msg_abc', timestamp: now, body, secrets: [secret] });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow(/No matching signature/);
    expect(() => new Webhook(secret).verify(body.replace('job_1', 'job_2'), { ...headers })).toThrow();
  });

  it('sends one signature per secret, space-separated, each verifiable on its own', () => {
    const previous = generateWebhookSecret();
    const headers = signWebhook({ webhookId: 'msg_abc', timestamp: new Date(), body, secrets: [secret, previous] });
    const parts = headers['webhook-signature'].split(' ');
    expect(parts).toHaveLength(2);
    expect(parts.every((p) => p.startsWith('v1,'))).toBe(true);
    expect(() => new Webhook(secret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(previous).verify(body, { ...headers })).not.toThrow();
  });

  it('refuses to sign without a secret', () => {
    expect(() => signWebhook({ webhookId: 'msg_abc', timestamp, body, secrets: [] })).toThrow();
  });
});

describe('activeSigningSecrets', () => {
  const current = 'whsec_current';
  const previous = 'whsec_previous';
  const rotatedAt = new Date('2030-01-01T00:00:00Z');

  it('is only the current secret without a rotation', () => {
    expect(activeSigningSecrets({ webhookSecret: current }, rotatedAt, DAY)).toEqual([current]);
    expect(activeSigningSecrets({ webhookSecret: current, webhookSecretPrevious: previous }, rotatedAt, DAY)).toEqual([
      current,
    ]);
  });

  it('adds the previous secret inside the rotation window only', () => {
    const account = { webhookSecret: current, webhookSecretPrevious: previous, webhookSecretRotatedAt: rotatedAt };
    const at = (seconds: number) => new Date(rotatedAt.getTime() + seconds * 1000);
    expect(activeSigningSecrets(account, at(0), DAY)).toEqual([current, previous]);
    expect(activeSigningSecrets(account, at(DAY - 1), DAY)).toEqual([current, previous]);
    expect(activeSigningSecrets(account, at(DAY), DAY)).toEqual([current]);
    expect(activeSigningSecrets(account, at(10), 0)).toEqual([current]);
  });
});
