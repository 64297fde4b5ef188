/**
 * Replicate specifics through the `replicate` SDK against the fake: the create request carries the webhook, its
 * event filter and `Cancel-After`; our own files go through the files API; progress is read from the logs; a
 * sensitive-content failure is a content-policy violation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReplicateAdapter, progressFromLogs } from '../../../src/providers/upstreams/replicate';
import type { InputFile, UpstreamAdapter, UpstreamRoute } from '../../../src/providers/upstreams/types';
import { samplePng } from '../../support/upstreams/media';
import { startReplicateFake, type ReplicateFake } from '../../support/upstreams/replicate';

const ROUTE: UpstreamRoute = { model: 'black-forest-labs/flux-schnell', input: {}, outputs: ['[]'] };

describe('Replicate adapter', () => {
  let fake: ReplicateFake;
  let adapter: UpstreamAdapter;
  const signal = () => AbortSignal.timeout(10_000);

  beforeAll(async () => {
    fake = await startReplicateFake();
    adapter = createReplicateAdapter({ env: fake.env });
  });
  afterAll(() => fake?.close());

  it('creates the prediction with the webhook, its event filter and Cancel-After until the deadline', async () => {
    const snapshot = await adapter.submit(
      { jobId: 'job_r1', route: ROUTE, input: { prompt: 'a fox', num_outputs: 1 }, callbackUrl: 'https://genmedia.example/v1/upstreams/replicate/callback', deadline: new Date(Date.now() + 600_000) },
      signal(),
    );
    expect(snapshot).toMatchObject({ state: 'queued', stage: 'starting' });
    const create = fake.requests.find((r) => r.method === 'POST' && r.url === '/v1/models/black-forest-labs/flux-schnell/predictions')!;
    expect(JSON.parse(create.body)).toMatchObject({
      input: { prompt: 'a fox' },
      webhook: 'https://genmedia.example/v1/upstreams/replicate/callback',
      webhook_events_filter: ['start', 'completed'],
    });
    const seconds = Number(/^(\d+)s$/.exec(String(create.headers['cancel-after']))?.[1]);
    expect(seconds).toBeGreaterThan(590);
    expect(seconds).toBeLessThanOrEqual(600);
  });

  it('runs a version when the route names one', async () => {
    await adapter.submit({ jobId: 'job_r2', route: { ...ROUTE, model: 'owner/model:abc123' }, input: { prompt: 'a fox' }, deadline: new Date(Date.now() + 60_000) }, signal());
    const create = fake.requests.filter((r) => r.method === 'POST' && r.url === '/v1/predictions').at(-1)!;
    expect(JSON.parse(create.body)).toMatchObject({ version: 'abc123' });
  });

  it('uploads our own files through the files API and passes other URLs on', async () => {
    const png = await samplePng();
    const own: InputFile = { url: 'http://127.0.0.1:3000/v1/files/file_x', own: true, read: async () => ({ data: png, contentType: 'image/png', filename: 'scene.png' }) };
    const uploaded = await adapter.prepareFile(own, signal());
    expect(uploaded).toMatch(new RegExp(`^${fake.url}/v1/files/`));
    expect(fake.requests.some((r) => r.method === 'POST' && r.url === '/v1/files')).toBe(true);
    const external: InputFile = { url: 'https://example.com/a.png', own: false, read: async () => { throw new Error('not read'); } };
    expect(await adapter.prepareFile(external, signal())).toBe('https://example.com/a.png');
  });

  it('reads progress from the last progress bar in the logs', () => {
    expect(progressFromLogs('Using seed: 1\n 25%|██▌       | 1/4\n 75%|███████▌  | 3/4')).toBe(75);
    expect(progressFromLogs('no bar here')).toBeUndefined();
    expect(progressFromLogs(undefined)).toBeUndefined();
  });

  it('reports a sensitive-content failure as CONTENT_POLICY_VIOLATION and a generic one as PROVIDER_JOB_FAILED', async () => {
    const ask = async (prompt: string) => {
      const { id } = await adapter.submit({ jobId: 'job_r3', route: ROUTE, input: { prompt }, deadline: new Date(Date.now() + 60_000) }, signal());
      await new Promise((resolve) => setTimeout(resolve, 400));
      return adapter.status({ id, route: ROUTE }, signal());
    };
    expect((await ask('x [upstream:content-policy]')).error).toMatchObject({ code: 'CONTENT_POLICY_VIOLATION', retryable: false });
    expect((await ask('x [upstream:fail]')).error).toMatchObject({ code: 'PROVIDER_JOB_FAILED', retryable: false });
  });
});
