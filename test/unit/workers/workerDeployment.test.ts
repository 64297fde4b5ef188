/**
 * makeCurrentIfNew against a fake of the worker deployment service: a version the server refuses as current because
 * its worker has not yet polled every task queue of the current one is asked again, and becomes current once it has;
 * any other refusal is passed on; a worker that stops while it waits ends the wait at once. The watch of the current
 * version ends with its worker, also one stopped before the watch began.
 */
import { describe, expect, it } from 'vitest';
import { makeCurrentIfNew, watchCurrentVersion, type DeploymentVersion } from '../../../src/workers/workerDeployment';

const version: DeploymentVersion = { deploymentName: 'genmedia', buildId: '0.1.0-new' };

function refusal(code: number, message: string): Error {
  return Object.assign(new Error(`${code} ${message}`), { code });
}

/** A deployment whose current version is another build; `setCurrent` answers with the refusals given, then succeeds. */
function fakeService(refusals: Error[]) {
  const calls = { set: 0, describe: 0 };
  const service = {
    async describeWorkerDeployment() {
      calls.describe += 1;
      return {
        conflictToken: new Uint8Array([1]),
        workerDeploymentInfo: {
          routingConfig: { currentDeploymentVersion: { buildId: '0.1.0-old' } },
          versionSummaries: [{ deploymentVersion: { buildId: '0.1.0-old' }, currentSinceTime: {} }, { deploymentVersion: { buildId: version.buildId } }],
        },
      };
    },
    async setWorkerDeploymentCurrentVersion() {
      calls.set += 1;
      const next = refusals.shift();
      if (next) throw next;
      return {};
    },
  };
  return { service: service as never, calls };
}

describe('makeCurrentIfNew', () => {
  it('asks again while the new build has not polled every task queue of the current one', async () => {
    const missing = refusal(9, "FAILED_PRECONDITION: proposed current version 'genmedia:0.1.0-new' is missing active task queues from the current version");
    const { service, calls } = fakeService([missing, missing]);
    expect((await makeCurrentIfNew(service, 'default', version, { identity: 'test', intervalMs: 1 })).outcome).toBe('made-current');
    expect(calls.set).toBe(3);
  });

  it('gives up with the refusal once its wait is over', async () => {
    const missing = refusal(9, 'missing active task queues from the current version');
    const { service } = fakeService(Array.from({ length: 1000 }, () => missing));
    await expect(makeCurrentIfNew(service, 'default', version, { identity: 'test', waitMs: 50, intervalMs: 5 })).rejects.toThrow(/missing active task queues/);
  });

  it('passes on any other refusal at once', async () => {
    const { service, calls } = fakeService([refusal(7, 'PERMISSION_DENIED: not allowed')]);
    await expect(makeCurrentIfNew(service, 'default', version, { identity: 'test', intervalMs: 1 })).rejects.toThrow(/PERMISSION_DENIED/);
    expect(calls.set).toBe(1);
  });

  it('ends its wait as soon as the worker stops, long before the wait is over', async () => {
    const notFound = refusal(5, "NOT_FOUND: no Worker Deployment found with name 'genmedia'");
    const service = { describeWorkerDeployment: async () => Promise.reject(notFound) } as never;
    const stopping = new AbortController();
    setTimeout(() => stopping.abort(new Error('stopping on SIGTERM')), 50);
    const started = Date.now();
    await expect(makeCurrentIfNew(service, 'default', version, { identity: 'test', waitMs: 60_000, intervalMs: 250, signal: stopping.signal })).rejects.toThrow(
      'stopping on SIGTERM',
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('watchCurrentVersion', () => {
  const watchOptions = (signal?: AbortSignal) => ({
    identity: 'test',
    takeOver: { taskQueue: 'jobs', afterMs: 60_000 },
    intervalMs: 20,
    onClaim: () => undefined,
    onError: () => undefined,
    ...(signal ? { signal } : {}),
  });

  it('looks again every interval until it is stopped', async () => {
    const { service, calls } = fakeService([]);
    const watch = watchCurrentVersion(service, 'default', version, watchOptions());
    await new Promise((resolve) => setTimeout(resolve, 200));
    watch.stop();
    const looked = calls.describe;
    expect(looked).toBeGreaterThan(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(calls.describe).toBe(looked);
  });

  it('never looks when the worker was stopped before the watch began (a stop during the claim at start)', async () => {
    const { service, calls } = fakeService([]);
    const stopping = new AbortController();
    stopping.abort(new Error('stopping on SIGTERM'));
    watchCurrentVersion(service, 'default', version, watchOptions(stopping.signal));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(calls.describe).toBe(0);
  });

  it('ends when the worker stops', async () => {
    const { service, calls } = fakeService([]);
    const stopping = new AbortController();
    watchCurrentVersion(service, 'default', version, watchOptions(stopping.signal));
    await new Promise((resolve) => setTimeout(resolve, 100));
    stopping.abort(new Error('stopping on SIGTERM'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const looked = calls.describe;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(calls.describe).toBe(looked);
  });
});
