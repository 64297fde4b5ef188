/**
 * The production shape of Temporal (the server on PostgreSQL, configured as `npm run cluster` configures it, with the
 * dynamic configuration it writes), one server for the scenarios that leave it running, a namespace each:
 * - Worker Versioning: an in-flight job across an upgrade of the workflow worker (test/workflows/upgradeScenario.ts);
 * - fair share: an account's few jobs start interleaved with another account's backlog, not behind it.
 * The scenario that kills the server has one of its own (temporalRestart.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { lateTenantScenario } from '../../support/fairShare';
import { configuredRetention, describedRetentionSeconds } from '../../support/namespaceRetention';
import { startTemporalServer, type TemporalServer } from '../../support/temporalServer';
import { bundleWorkflows, quietTemporalLogs } from '../../workflows/temporalEnv';
import { upgradeAcrossBuilds } from '../../workflows/upgradeScenario';

const NAMESPACES = { versioning: 'versioning', fairShare: 'fair-share' };

let server: TemporalServer;
let connection: Connection;
let nativeConnection: NativeConnection;

beforeAll(async () => {
  quietTemporalLogs();
  server = await startTemporalServer(Object.values(NAMESPACES));
  connection = await Connection.connect({ address: server.address });
  nativeConnection = await NativeConnection.connect({ address: server.address });
}, 240_000);

afterAll(async () => {
  await nativeConnection?.close();
  await connection?.close();
  await server?.close();
}, 60_000);

describe('Worker Versioning on the Temporal server on PostgreSQL', () => {
  it('finishes an in-flight job on the build that started it while the next build takes the new jobs', async () => {
    const namespace = NAMESPACES.versioning;
    const client = new Client({ connection, namespace });
    await upgradeAcrossBuilds({ client, nativeConnection, namespace }, await bundleWorkflows());
  }, 240_000);
});

describe('fair share on the Temporal server on PostgreSQL', () => {
  it("starts a second account's few jobs interleaved with the first's backlog", async () => {
    const fair = await lateTenantScenario({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: NAMESPACES.fairShare });
    expect(fair.aBacklogAtB).toBeGreaterThanOrEqual(20);
    expect(fair.aBeforeBsLast).toBeLessThanOrEqual(10);
    expect(fair.aAfterBsLast).toBeGreaterThanOrEqual(fair.aBacklogAtB - 15);
  }, 240_000);

  it('registers the namespace with the configured retention, as `npm run cluster` does', async () => {
    expect(await describedRetentionSeconds(server.address, NAMESPACES.fairShare)).toBe(configuredRetention().seconds);
  });
});
