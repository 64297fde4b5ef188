import { describe, expect, it } from 'vitest';
import { CallbackRejected } from '../../../../src/providers/upstreams/types';
import type { CogPredictionRecord, CogPredictionStore } from '../../../../src/providers/upstreams/cog/store';
import { createCogWebhookVerifier, hashOf, webhookUrlWith } from '../../../../src/providers/upstreams/cog/webhooks';

function memoryStore(secret: string) {
  const record: CogPredictionRecord = { id: 'job_1', providerId: 'gpu', serverUrl: 'http://gpu:5000', secretHash: hashOf(secret), terminal: false, released: false };
  const store: Pick<CogPredictionStore, 'find' | 'recordWebhook'> = {
    async find(id) {
      return id === record.id ? { ...record } : null;
    },
    async recordWebhook(_id, snapshot, terminal) {
      if (record.terminal) return false;
      record.snapshot = snapshot;
      record.terminal = terminal;
      return true;
    },
  };
  return { record, store };
}

const delivery = (body: object, secret?: string, prediction = 'job_1') => ({
  headers: { 'content-type': 'application/json' },
  rawBody: Buffer.from(JSON.stringify(body)),
  query: secret === undefined ? { prediction } : { prediction, secret },
});

describe('Cog webhook secrets', () => {
  it('puts the secret in the callback URL, keeping its own query', () => {
    expect(webhookUrlWith('https://api.example/v1/upstreams/cog/callback?x=1', 'job_1', 'abc')).toBe(
      'https://api.example/v1/upstreams/cog/callback?x=1&prediction=job_1&secret=abc',
    );
  });

  it('takes a delivery with the prediction\'s secret and keeps its snapshot', async () => {
    const { record, store } = memoryStore('s3cret');
    const verify = createCogWebhookVerifier(store);
    const running = await verify(delivery({ id: 'job_1', status: 'processing', logs: 'step 1/4\n' }, 's3cret'));
    expect(running).toMatchObject({ upstreamId: 'job_1', state: 'running', worthACheck: true });
    const done = await verify(delivery({ id: 'job_1', status: 'succeeded', output: 'data:image/png;base64,AA==' }, 's3cret'));
    expect(done).toMatchObject({ state: 'succeeded', worthACheck: true });
    expect(record.terminal).toBe(true);
    // A late non-terminal webhook (Cog sends them unordered) changes nothing.
    const late = await verify(delivery({ id: 'job_1', status: 'processing', logs: 'step 3/4\n' }, 's3cret'));
    expect(late.worthACheck).toBe(false);
    expect(record.snapshot).toMatchObject({ status: 'succeeded' });
  });

  it('refuses a wrong, missing or other prediction\'s secret, and a body that names no prediction, changing nothing', async () => {
    const { record, store } = memoryStore('s3cret');
    const verify = createCogWebhookVerifier(store);
    const forged = { id: 'job_1', status: 'failed', error: 'forged' };
    await expect(verify(delivery(forged, 's3cres'))).rejects.toBeInstanceOf(CallbackRejected);
    await expect(verify(delivery(forged))).rejects.toBeInstanceOf(CallbackRejected);
    // The right secret for another prediction than the body's, or than one we know.
    await expect(verify(delivery({ ...forged, id: 'job_2' }, 's3cret'))).rejects.toThrow(/another prediction/);
    await expect(verify(delivery({ ...forged, id: 'job_2' }, 's3cret', 'job_2'))).rejects.toBeInstanceOf(CallbackRejected);
    await expect(verify({ headers: {}, rawBody: Buffer.from('not json'), query: { prediction: 'job_1', secret: 's3cret' } })).rejects.toBeInstanceOf(CallbackRejected);
    await expect(verify(delivery({ status: 'failed' }, 's3cret'))).rejects.toBeInstanceOf(CallbackRejected);
    expect(record.terminal).toBe(false);
    expect(record.snapshot).toBeUndefined();
  });
});
