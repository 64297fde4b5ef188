/** The upstream callback use case over a stand-in store, verifier and workflow signal. */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createUpstreamCallbackService, type CallbackVerifier, type UpstreamCallbackDeps } from '../../../src/jobs/upstreamCallbacks';
import { CallbackRejected } from '../../../src/providers/upstreams/types';

const REPLICATE_HEADERS: Record<string, string> = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' };
const request = { headers: REPLICATE_HEADERS, rawBody: Buffer.from('{}') };

function fakeDeps(options: { verify?: CallbackVerifier | null; jobs?: Record<string, string>; signal?: (jobId: string) => Promise<boolean> } = {}) {
  const remembered = new Set<string>();
  const signalled: Array<[string, string | undefined]> = [];
  const forgotten: string[] = [];
  const verify: CallbackVerifier | null =
    options.verify === undefined ? async () => ({ upstreamId: 'pred_1', callbackId: 'msg_1', state: 'succeeded' }) : options.verify;
  const deps: UpstreamCallbackDeps = {
    verifierFor: async (upstream) => (upstream === 'replicate' ? verify : null),
    findJob: async (_upstream, upstreamId) => {
      const id = (options.jobs ?? { pred_1: 'job_1' })[upstreamId];
      return id ? { id } : null;
    },
    rememberCallback: async (upstream, callbackId) => {
      const key = `${upstream}:${callbackId}`;
      if (remembered.has(key)) return false;
      remembered.add(key);
      return true;
    },
    forgetCallback: async (upstream, callbackId) => {
      remembered.delete(`${upstream}:${callbackId}`);
      forgotten.push(callbackId);
    },
    signalJob: async (jobId, state) => {
      signalled.push([jobId, state]);
      return options.signal ? options.signal(jobId) : true;
    },
    logger: pino({ level: 'silent' }),
  };
  return { service: createUpstreamCallbackService(deps), signalled, forgotten };
}

describe('upstream callbacks', () => {
  it('takes callbacks only for a configured upstream with its signature headers present', async () => {
    const { service } = fakeDeps();
    await expect(service.admit('nope', () => undefined)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.admit('fal', () => 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.admit('replicate', (name) => (name === 'webhook-id' ? 'msg_1' : undefined))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: expect.stringContaining('webhook-timestamp, webhook-signature'),
    });
    await expect(service.admit('replicate', (name) => REPLICATE_HEADERS[name])).resolves.toMatchObject({ upstream: 'replicate' });
  });

  it('wakes the job a verified callback is about, once per delivery', async () => {
    const { service, signalled } = fakeDeps();
    const admitted = await service.admit('replicate', (name) => REPLICATE_HEADERS[name]);
    await service.receive(admitted, request);
    expect(signalled).toEqual([['job_1', 'succeeded']]);
    await expect(service.receive(admitted, request)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringContaining('already received') });
    expect(signalled).toHaveLength(1);
  });

  it('refuses a forged callback, and answers 503 when it cannot be verified now', async () => {
    const forged = fakeDeps({ verify: async () => Promise.reject(new CallbackRejected('bad signature')) });
    const admitted = await forged.service.admit('replicate', (name) => REPLICATE_HEADERS[name]);
    await expect(forged.service.receive(admitted, request)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'Callback rejected: bad signature' });
    const down = fakeDeps({ verify: async () => Promise.reject(new Error('JWKS unreachable')) });
    const again = await down.service.admit('replicate', (name) => REPLICATE_HEADERS[name]);
    await expect(down.service.receive(again, request)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(forged.signalled.concat(down.signalled)).toEqual([]);
  });

  it('answers a generation it does not know 404 and remembers nothing', async () => {
    const { service, signalled } = fakeDeps({ jobs: {} });
    const admitted = await service.admit('replicate', (name) => REPLICATE_HEADERS[name]);
    await expect(service.receive(admitted, request)).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
    expect(signalled).toEqual([]);
  });

  it('forgets a delivery it could not act on, so the upstream’s retry is taken', async () => {
    let fail = true;
    const { service, forgotten, signalled } = fakeDeps({
      signal: async () => {
        if (fail) throw new Error('Temporal unavailable');
        return true;
      },
    });
    const admitted = await service.admit('replicate', (name) => REPLICATE_HEADERS[name]);
    await expect(service.receive(admitted, request)).rejects.toThrow('Temporal unavailable');
    expect(forgotten).toEqual(['msg_1']);
    fail = false;
    await service.receive(admitted, request);
    expect(signalled).toHaveLength(2);
  });
});
