/** The provider callback use case over a stand-in store, verifiers and workflow signal. */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createProviderCallbackService, type KindCallbacks, type ProviderCallbackDeps } from '../../../src/jobs/providerCallbacks';
import { CallbackRejected, type CallbackHead, type VerifiedCallback } from '../../../src/providers/types';

const REPLICATE_HEADERS: Record<string, string> = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' };
const head = (headers: Record<string, string>, query: Record<string, string> = {}): CallbackHead => ({ headers, query });
const request = { headers: REPLICATE_HEADERS, rawBody: Buffer.from('{}') };

type Verify = () => Promise<VerifiedCallback>;

/** Replicate's rules and a stand-in for its signature check: the headers must be there, the body is `verify`'s. */
function signed(verify: Verify): KindCallbacks {
  return {
    rules: { bodyLimitBytes: 1024 * 1024, refusesReplays: true, takesUnknownGenerations: false },
    verifier: {
      async admit({ headers }) {
        const missing = Object.keys(REPLICATE_HEADERS).filter((name) => !headers[name]);
        if (missing.length > 0) throw new CallbackRejected(`missing ${missing.join(', ')}`);
        return { verify };
      },
    },
  };
}

/** Cog's rules and a stand-in for its secret check: the query's secret must be `s3cret`. */
function cog(verify: Verify): KindCallbacks {
  return {
    rules: { bodyLimitBytes: 64 * 1024 * 1024, refusesReplays: false, takesUnknownGenerations: true },
    verifier: {
      async admit({ query }) {
        if (query?.secret !== 's3cret') throw new CallbackRejected('the secret does not match the prediction');
        return { verify };
      },
    },
  };
}

function fakeDeps(options: { verify?: Verify | null; cogVerify?: Verify; jobs?: Record<string, string>; signal?: (jobId: string) => Promise<boolean> } = {}) {
  const remembered = new Set<string>();
  const signalled: Array<[string, string | undefined]> = [];
  const forgotten: string[] = [];
  const lookedUp: Array<[string, string | undefined]> = [];
  const verify = options.verify === undefined ? async () => ({ upstreamId: 'pred_1', callbackId: 'msg_1', state: 'succeeded' as const }) : options.verify;
  const cogVerify = options.cogVerify ?? (async () => ({ upstreamId: 'job_9', callbackId: 'h1', state: 'running' as const, providerId: 'studio', worthACheck: true }));
  const deps: ProviderCallbackDeps = {
    callbacksOf: async (kind) => (kind === 'replicate' && verify ? signed(verify) : kind === 'cog' ? cog(cogVerify) : null),
    findJob: async (kind, providerId, upstreamId) => {
      lookedUp.push([kind, providerId]);
      const id = (options.jobs ?? { pred_1: 'job_1', job_9: 'job_9' })[upstreamId];
      return id ? { id } : null;
    },
    rememberCallback: async (kind, callbackId) => {
      const key = `${kind}:${callbackId}`;
      if (remembered.has(key)) return false;
      remembered.add(key);
      return true;
    },
    forgetCallback: async (kind, callbackId) => {
      remembered.delete(`${kind}:${callbackId}`);
      forgotten.push(callbackId);
    },
    signalJob: async (jobId, state) => {
      signalled.push([jobId, state]);
      return options.signal ? options.signal(jobId) : true;
    },
    logger: pino({ level: 'silent' }),
  };
  return { service: createProviderCallbackService(deps), signalled, forgotten, lookedUp };
}

describe('provider callbacks', () => {
  it('takes callbacks only for a kind that sends them, with what its verifier checks before the body present', async () => {
    const { service } = fakeDeps();
    await expect(service.admit('nope', head({}))).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'No callbacks are taken for upstream nope' });
    await expect(service.admit('fal', head(REPLICATE_HEADERS))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.admit('replicate', head({ 'webhook-id': 'msg_1' }))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'Callback rejected: missing webhook-timestamp, webhook-signature',
    });
    await expect(service.admit('replicate', head(REPLICATE_HEADERS))).resolves.toMatchObject({ kind: 'replicate' });
    await expect(service.admit('cog', head({}, { secret: 'wrong' }))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'Callback rejected: the secret does not match the prediction',
    });
    await expect(service.admit('cog', head({}, { secret: 's3cret' }))).resolves.toMatchObject({ kind: 'cog' });
  });

  it('wakes the job a verified callback is about, once per delivery', async () => {
    const { service, signalled } = fakeDeps();
    const admitted = await service.admit('replicate', head(REPLICATE_HEADERS));
    await service.receive(admitted, request);
    expect(signalled).toEqual([['job_1', 'succeeded']]);
    await expect(service.receive(admitted, request)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringContaining('already received') });
    expect(signalled).toHaveLength(1);
  });

  it('refuses a forged callback, and answers 503 when it cannot be verified now', async () => {
    const forged = fakeDeps({ verify: async () => Promise.reject(new CallbackRejected('bad signature')) });
    const admitted = await forged.service.admit('replicate', head(REPLICATE_HEADERS));
    await expect(forged.service.receive(admitted, request)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'Callback rejected: bad signature' });
    const down = fakeDeps({ verify: async () => Promise.reject(new Error('JWKS unreachable')) });
    const again = await down.service.admit('replicate', head(REPLICATE_HEADERS));
    await expect(down.service.receive(again, request)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(forged.signalled.concat(down.signalled)).toEqual([]);
  });

  it('answers a generation it does not know 404 and remembers nothing', async () => {
    const { service, signalled } = fakeDeps({ jobs: {} });
    const admitted = await service.admit('replicate', head(REPLICATE_HEADERS));
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
    const admitted = await service.admit('replicate', head(REPLICATE_HEADERS));
    await expect(service.receive(admitted, request)).rejects.toThrow('Temporal unavailable');
    expect(forgotten).toEqual(['msg_1']);
    fail = false;
    await service.receive(admitted, request);
    expect(signalled).toHaveLength(2);
  });

  it('takes a Cog webhook for its own provider again and again, and one whose job is not known yet', async () => {
    const { service, signalled, lookedUp } = fakeDeps();
    const admitted = await service.admit('cog', head({}, { secret: 's3cret' }));
    await service.receive(admitted, { ...request, headers: {} });
    await service.receive(admitted, { ...request, headers: {} });
    expect(signalled).toEqual([
      ['job_9', 'running'],
      ['job_9', 'running'],
    ]);
    expect(lookedUp).toEqual([
      ['cog', 'studio'],
      ['cog', 'studio'],
    ]);
    const early = fakeDeps({ jobs: {} });
    await early.service.receive(await early.service.admit('cog', head({}, { secret: 's3cret' })), { ...request, headers: {} });
    expect(early.signalled).toEqual([]);
  });

  it('does not wake the job for a Cog webhook that moved nothing', async () => {
    const { service, signalled, lookedUp } = fakeDeps({
      cogVerify: async () => ({ upstreamId: 'job_9', callbackId: 'h2', providerId: 'studio', worthACheck: false }),
    });
    await service.receive(await service.admit('cog', head({}, { secret: 's3cret' })), { ...request, headers: {} });
    expect(signalled).toEqual([]);
    expect(lookedUp).toEqual([]);
  });
});
