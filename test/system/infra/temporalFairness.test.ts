/**
 * Fair share on the production shape of Temporal (the server on PostgreSQL with the dynamic configuration `npm run
 * cluster` writes): an account's few jobs start interleaved with another account's backlog, not behind it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lateTenantScenario } from '../../support/fairShare';
import { configuredRetention, describedRetentionSeconds } from '../../support/namespaceRetention';
import { startTemporalServer, type TemporalServer } from '../../support/temporalServer';

let server: TemporalServer;

beforeAll(async () => {
  server = await startTemporalServer();
}, 240_000);

afterAll(async () => {
  await server?.close();
}, 60_000);

describe('fair share on the Temporal server on PostgreSQL', () => {
  it("starts a second account's few jobs interleaved with the first's backlog", async () => {
    const fair = await lateTenantScenario({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: 'default' });
    expect(fair.aBacklogAtB).toBeGreaterThanOrEqual(20);
    expect(fair.aBeforeBsLast).toBeLessThanOrEqual(10);
    expect(fair.aAfterBsLast).toBeGreaterThanOrEqual(fair.aBacklogAtB - 15);
  }, 240_000);

  it('registers the namespace with the configured retention, as `npm run cluster` does', async () => {
    expect(await describedRetentionSeconds(server.address, 'default')).toBe(configuredRetention().seconds);
  });
});
