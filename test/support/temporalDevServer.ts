/**
 * A Temporal dev server of its own whose state is a SQLite file, as `npm run dev` runs it, for tests that stop Temporal
 * and start it again on the same state: a free port, namespace `default` with genmedia's search attributes. Needs only
 * the Temporal CLI (TEMPORAL_CLI_PATH), which every integration run has.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { freeRestartPort } from './restartPort';
import { restartable, temporalCli, type TemporalServer } from './temporalServer';

const load = createRequire(__filename);
const { createService, ensureSearchAttributes } = load('../../scripts/lib/temporal.js');

export async function startPersistentDevServer(): Promise<TemporalServer> {
  const binary = temporalCli();
  if (!binary) throw new Error('TEMPORAL_CLI_PATH is not set (run through npm test, whose bootstrap provides the Temporal CLI)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-temporal-dev-'));
  const port = await freeRestartPort();
  const address = `127.0.0.1:${port}`;
  const dbFile = path.join(dir, 'temporal.db');
  // Every start reads the same file: what the server stored before it stopped is there again.
  return restartable(address, dir, {
    service: () => createService({ binary, port, dbFile, namespace: 'default', logFile: path.join(dir, 'server.log') }),
    waitReadyWith: binary,
    firstStart: () => ensureSearchAttributes({ binary, address, namespace: 'default' }),
  });
}
