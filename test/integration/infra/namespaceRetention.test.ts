/**
 * The Temporal `npm test` starts (the dev server `npm run dev` starts too, through scripts/lib/infrastructure.js)
 * keeps closed workflows for the configured namespace retention, read back from the server itself.
 */
import { describe, expect, it } from 'vitest';
import { configuredRetention, describedRetentionSeconds } from '../../support/namespaceRetention';

describe('Temporal namespace retention', () => {
  it("is the configured TEMPORAL_NAMESPACE_RETENTION on the test stack's namespace", async () => {
    expect(process.env.TEMPORAL_NAMESPACE_RETENTION, 'npm test passes the retention it configured').toBeTruthy();
    const { seconds } = configuredRetention();
    const address = process.env.TEMPORAL_ADDRESS!;
    const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
    expect(await describedRetentionSeconds(address, namespace)).toBe(seconds);
  });
});
