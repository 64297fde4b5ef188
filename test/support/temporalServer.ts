/**
 * A Temporal server on PostgreSQL (the production shape, as `npm run cluster` runs it) for one test file or
 * benchmark: its own two databases in the harness's PostgreSQL, free ports, namespace `default` (or the namespaces
 * asked for, one per scenario that shares the server) with genmedia's search attributes. Needs the binaries the test
 * bootstrap built (TEMPORAL_CLUSTER_BINARIES).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { freeRestartPorts } from './restartPort';

const load = createRequire(__filename);
const cluster = load('../../scripts/lib/temporalCluster.js');
const { waitReady } = load('../../scripts/lib/temporal.js');

/** A server process of scripts/lib (the cluster's or the dev server), started again by calling start() anew. */
export interface ServerService {
  start(): void;
  stop(graceMs?: number): Promise<void>;
}

export interface TemporalServer {
  address: string;
  /** `graceMs` 0: killed at once, as a crash would. */
  stop(graceMs?: number): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its files. */
  close(): Promise<void>;
}

export const temporalCli = (): string => process.env.TEMPORAL_CLI_PATH ?? '';

export async function startTemporalServer(namespaces: string[] = ['default']): Promise<TemporalServer> {
  const binaries = JSON.parse(process.env.TEMPORAL_CLUSTER_BINARIES || 'null');
  if (!binaries) throw new Error('TEMPORAL_CLUSTER_BINARIES is not set (run through npm test or npm run bench, whose bootstrap builds the server)');
  const pg = new URL(process.env.DATABASE_URL!);
  const suffix = randomBytes(4).toString('hex');
  const databases = { main: `temporal_${suffix}`, visibility: `temporal_visibility_${suffix}` };
  const credentials = { pgPort: Number(pg.port), user: decodeURIComponent(pg.username), password: decodeURIComponent(pg.password) };
  cluster.setupSchemas({ sqlTool: binaries.sqlTool, schemaDir: binaries.schemaDir, databases, ...credentials });

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-temporal-server-'));
  // A port found free may be taken by another process before the server binds it: its first start then fails, and is
  // tried again on other ports (a restart keeps the ports of the first start, which its state names).
  for (let attempt = 1; ; attempt += 1) {
    // Below the ephemeral range: a restart needs its ports again, and Temporal stores membership ports as smallint.
    const [frontend, frontendHttp, history, matching, worker, ...membership] = await freeRestartPorts(9);
    const ports = { frontend, frontendHttp, history, matching, worker, membership };
    const address = `127.0.0.1:${ports.frontend}`;
    try {
      return await restartable(address, dir, {
        service: () => cluster.createServerService({ binary: binaries.server, dir, logFile: path.join(dir, 'server.log'), databases, ports, ...credentials }),
        waitReadyWith: temporalCli(),
        firstStart: () => Promise.all(namespaces.map((namespace) => cluster.prepareNamespace({ cli: temporalCli(), address, namespace }))),
      });
    } catch (err) {
      if (attempt >= 3 || !/address already in use/.test(String(err))) throw err;
    }
  }
}

/**
 * A server at `address` whose state lives in `dir`: every start() makes its process anew on that state and waits for it
 * to answer (with the Temporal CLI `waitReadyWith`); close() stops it for good and removes `dir`.
 */
export async function restartable(
  address: string,
  dir: string,
  how: { service(): ServerService; waitReadyWith: string; firstStart(): unknown },
): Promise<TemporalServer> {
  let service: ServerService | undefined;
  const start = async () => {
    service = how.service();
    service.start();
    await waitReady({ binary: how.waitReadyWith, address, service });
  };
  await start();
  await how.firstStart();
  return {
    address,
    start,
    stop: async (graceMs) => service?.stop(graceMs),
    async close() {
      await service?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
