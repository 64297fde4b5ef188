/** An in-flight job across an upgrade of the workflow worker, on the Temporal CLI's dev server (upgradeScenario.ts). */
import { describe, it } from 'vitest';
import { useJobHarness } from './jobHarness';
import { upgradeAcrossBuilds } from './upgradeScenario';

const harness = useJobHarness();

describe('a job across an upgrade of the workflow worker', () => {
  it('finishes on the build that started it while the next build takes the new jobs', async () => {
    const { env, bundle } = harness();
    await upgradeAcrossBuilds({ client: env.client, nativeConnection: env.nativeConnection, namespace: env.namespace ?? 'default' }, bundle);
  }, 180_000);
});
