/**
 * Worker Versioning on the production shape of Temporal (the server on PostgreSQL, configured as `npm run cluster`
 * configures it): an in-flight job across an upgrade of the workflow worker (test/workflows/upgradeScenario.ts).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { startTemporalServer, type TemporalServer } from '../../support/temporalServer';
import { bundleWorkflows, quietTemporalLogs } from '../../workflows/temporalEnv';
import { upgradeAcrossBuilds } from '../../workflows/upgradeScenario';

let server: TemporalServer;
let connection: Connection;
let nativeConnection: NativeConnection;

beforeAll(async () => {
  quietTemporalLogs();
  server = await startTemporalServer();
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
    const client = new Client({ connection, namespace: 'default' });
    await upgradeAcrossBuilds({ client, nativeConnection, namespace: 'default' }, await bundleWorkflows());
  }, 240_000);
});
