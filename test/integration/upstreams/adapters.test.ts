/**
 * Each upstream adapter, through its official SDK, against its fake: the documented error answers map to our
 * stable codes, cancel never throws for an unknown generation, and an unreachable upstream is retryable.
 * (The full job path, callbacks and crashes are in test/integration/e2e/upstreams/.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../src/catalog/catalogFiles';
import { freeLoopbackPort } from '../../../src/lib/freePort';
import { createUpstreamAdapter } from '../../../src/providers/upstreams/adapters';
import { mapInput } from '../../../src/providers/inputMapping';
import type { UpstreamAdapter, UpstreamId, UpstreamMapping } from '../../../src/providers/upstreams/types';
import { failureOf } from '../../support/providerFailure';
import { startFalFake } from '../../support/upstreams/fal';
import { startGoogleFake } from '../../support/upstreams/google';
import { startOpenAIFake } from '../../support/upstreams/openai';
import { startReplicateFake } from '../../support/upstreams/replicate';
import { startRunwayFake } from '../../support/upstreams/runway';
import type { FakeUpstream } from '../../support/upstreams/types';

const FAKES: Record<UpstreamId, () => Promise<FakeUpstream>> = {
  fal: startFalFake,
  replicate: startReplicateFake,
  runway: startRunwayFake,
  google: startGoogleFake,
  openai: startOpenAIFake,
};

/** The upstream's text-to-image route (every upstream has one), and its input for a prompt. */
function textToImage(id: UpstreamId): { route: UpstreamMapping; input(prompt: string): Record<string, unknown> } {
  const model = loadCatalog().models.find((m) => m.providerId === id && m.capability === 'text-to-image')!;
  const route = model.versions[0]!.upstream as UpstreamMapping;
  return { route, input: (prompt) => mapInput(route.input, { prompt, size: 'square_hd', num_images: '1', quality: 'medium', background: 'auto' }) };
}

describe.each(Object.keys(FAKES) as UpstreamId[])('%s adapter', (id) => {
  let fake: FakeUpstream;
  let adapter: UpstreamAdapter;
  const { route, input } = textToImage(id);
  const signal = () => AbortSignal.timeout(20_000);
  const submit = (a: UpstreamAdapter, prompt: string) =>
    a.submit({ jobId: `job_${Math.random().toString(36).slice(2)}`, mapping: route, input: input(prompt), deadline: new Date(Date.now() + 600_000) }, signal());

  beforeAll(async () => {
    fake = await FAKES[id]();
    adapter = createUpstreamAdapter(id, { env: fake.env, requestTimeoutMs: 10_000 });
  });
  afterAll(() => fake?.close());

  it('refuses to start without its credential', () => {
    expect(() => createUpstreamAdapter(id, { env: {} })).toThrow(/is not set/);
  });

  it('maps a refused key to PROVIDER_AUTH_FAILED, not retryable', async () => {
    const credential = Object.keys(fake.env).find((name) => !/BASE_URL$/.test(name))!;
    const wrong = createUpstreamAdapter(id, { env: { ...fake.env, [credential]: 'not-the-key' } });
    const error = await failureOf(submit(wrong, 'a lighthouse'));
    expect(error).toMatchObject({ code: 'PROVIDER_AUTH_FAILED', retryable: false });
    expect(error.message).not.toContain(fake.apiKey);
  });

  it('maps a documented validation refusal to PROVIDER_REJECTED_INPUT, paying nothing', async () => {
    const before = fake.paidSubmissions();
    expect(await failureOf(submit(adapter, 'a lighthouse [upstream:invalid]'))).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
    expect(fake.paidSubmissions()).toBe(before);
  });

  it('starts one paid generation that ends with outputs the route can locate', async () => {
    const before = fake.paidSubmissions();
    let snapshot = await submit(adapter, 'a lighthouse');
    expect(snapshot.id).toEqual(expect.any(String));
    for (let i = 0; i < 50 && snapshot.state !== 'succeeded' && snapshot.state !== 'failed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      snapshot = await adapter.status({ id: snapshot.id, mapping: route }, signal());
    }
    expect(snapshot.state).toBe('succeeded');
    expect(snapshot.result).toBeDefined();
    expect(fake.paidSubmissions() - before).toBe(1);
  });

  it('treats cancelling an unknown generation as done', async () => {
    await expect(adapter.cancel({ id: 'no-such-generation', mapping: route }, signal())).resolves.toBeUndefined();
  });

  it('maps a refused connection (nothing sent) to PROVIDER_UNAVAILABLE, retryable', async () => {
    const origin = Object.keys(fake.env).find((name) => /BASE_URL$/.test(name))!;
    const closedPort = `http://127.0.0.1:${await freeLoopbackPort()}${id === 'openai' ? '/v1' : ''}`;
    const unreachable = createUpstreamAdapter(id, { env: { ...fake.env, [origin]: closedPort }, requestTimeoutMs: 2_000 });
    const error = await failureOf(submit(unreachable, 'a lighthouse'));
    expect(error).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', retryable: true });
  }, 30_000);
});
