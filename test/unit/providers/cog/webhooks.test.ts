import { describe, expect, it } from 'vitest';
import { CallbackRejected } from '../../../../src/providers/types';
import type { CogPredictionRecord, CogPredictionStore } from '../../../../src/providers/cog/store';
import { KEPT_ERROR_CHARACTERS, KEPT_LOG_CHARACTERS, snapshotOf } from '../../../../src/providers/cog/predictions';
import { createCogWebhookVerifier, hashOf, webhookUrlWith } from '../../../../src/providers/cog/webhooks';

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

  it('keeps only what the adapter reads of a prediction: no input, no output before it succeeded, the end of its logs', async () => {
    const { record, store } = memoryStore('s3cret');
    const verify = createCogWebhookVerifier(store);
    const partial = `data:image/png;base64,${'A'.repeat(100_000)}`;
    const logs = `${'loading weights\n'.repeat(2_000)}step 3/4\n`;
    const running = await verify(
      delivery({ id: 'job_1', status: 'processing', input: { prompt: 'a private prompt' }, logs, output: [partial], created_at: '2026-11-27T00:00:00Z' }, 's3cret'),
    );
    expect(running).toMatchObject({ state: 'running', worthACheck: true });
    expect(record.snapshot).toEqual({ id: 'job_1', status: 'processing', logs: logs.slice(-KEPT_LOG_CHARACTERS) });
    expect(snapshotOf('job_1', record.snapshot as object)).toMatchObject({ progress: 75, stage: 'step 3/4' });

    const output = 'data:image/png;base64,iVBORw0KGgo=';
    await verify(delivery({ id: 'job_1', status: 'succeeded', input: { prompt: 'a private prompt' }, logs, output: [output], metrics: { predict_time: 1.5, other: 2 } }, 's3cret'));
    expect(record.snapshot).toEqual({ id: 'job_1', status: 'succeeded', logs: logs.slice(-KEPT_LOG_CHARACTERS), metrics: { predict_time: 1.5 }, output: [output] });
  });

  it('keeps a failed prediction\'s error, shortened, and no output', async () => {
    const { record, store } = memoryStore('s3cret');
    const verify = createCogWebhookVerifier(store);
    await verify(delivery({ id: 'job_1', status: 'failed', error: `CUDA out of memory ${'x'.repeat(10_000)}`, output: ['data:image/png;base64,AA=='] }, 's3cret'));
    expect(record.snapshot).toEqual({ id: 'job_1', status: 'failed', error: `CUDA out of memory ${'x'.repeat(10_000)}`.slice(0, KEPT_ERROR_CHARACTERS) });
    expect(snapshotOf('job_1', record.snapshot as object).error?.message).toMatch(/^Cog prediction job_1 failed: CUDA out of memory x+$/);
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
